"""Planners (google-adk's `google.adk.planners`): an LlmAgent's `planner=`."""

from runtime.planners.base_planner import BasePlanner
from runtime.planners.built_in_planner import BuiltInPlanner
from runtime.planners.plan_re_act_planner import PlanReActPlanner

__all__ = ["BasePlanner", "BuiltInPlanner", "PlanReActPlanner"]
