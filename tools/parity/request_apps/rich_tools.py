"""Tools with rich signatures: defaults, Optional, lists, dicts, enums, Literal, Pydantic and
Annotated arguments, Args sections, async tools, a ToolContext parameter under another name, a
callable object, a partial, a long-running tool and a tool named by FunctionTool."""

import enum
import functools
from typing import Annotated, Any, Literal, Optional, Union

from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool, LongRunningFunctionTool, ToolContext
from pydantic import BaseModel, Field

from tools.parity.apps.rule_model import call, model, say


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    """Where a parcel goes."""

    street: str = Field(description="Street and number.")
    city: str
    zip_code: Optional[str] = None


class Parcel(BaseModel):
    weight_kg: float
    to: Address
    tags: list[str] = []


def paint_room(color: Color, rooms: list[str], dry_time_hours: Optional[int] = None) -> str:
    """Paints rooms with the specified color."""
    # google-adk passes the enum's value as the model sent it (a str); Chronicle converts it to Color.
    return f"painted {len(rooms)} rooms {getattr(color, 'value', color)}"


def book_flight(
    origin: str,
    destination: str,
    passengers: int = 1,
    cabin: Literal["economy", "business"] = "economy",
    extras: Optional[dict[str, Any]] = None,
    when: Union[str, int] = "today",
) -> dict:
    """Books a flight.

    Use it once the user has said where and when.

    Args:
        origin: The IATA code of the airport to leave from.
        destination: The IATA code of the airport to fly to.
            It may span two lines.
        passengers: How many people fly.
        cabin: The cabin class.
        extras: Anything else, as key/value pairs.
        when: A date, or a day offset.

    Returns:
        The booking.
    """
    return {"booked": f"{origin}-{destination}", "passengers": passengers}


async def ship(parcel: Parcel, express: bool = False, *, note: Annotated[str, Field(description="For the courier.")] = "") -> dict:
    """Ships a parcel (async)."""
    return {"shipped": parcel.to.city, "express": express}


def remember(fact: str, ctx: ToolContext, weights: list[float] = [], nested: Optional[list[dict[str, int]]] = None) -> dict:
    """Remembers a fact in the session state."""
    ctx.state["fact"] = fact
    return {"ok": True}


def no_args() -> str:
    return "nothing"


def untyped(a, b=3, *args, **kwargs):
    """An untyped tool."""
    return {"a": a}


class Counter:
    """Counts words."""

    def __call__(self, text: str, case_sensitive: bool = True) -> int:
        return len(text.split())


def _greet(greeting: str, name: str) -> str:
    """Greets someone."""
    return f"{greeting}, {name}"


def approve(amount: float, currency: str = "EUR") -> Optional[dict]:
    """Asks a person to approve a payment."""
    return None


def rule(text, response, request):
    if response is not None:
        return say(f"Done: {response.name}.")
    if "flight" in text:
        return call("book_flight", origin="CDG", destination="JFK", cabin="business")
    if "parcel" in text:
        return call("ship", parcel={"weight_kg": 2.5, "to": {"street": "1 Main St", "city": "Lyon"}})
    if "paint" in text:
        return call("paint_room", color="red", rooms=["hall", "kitchen"])
    if "remember" in text:
        return call("remember", fact="the sky is blue")
    return say("What can I do?")


root_agent = LlmAgent(
    name="helper",
    model=model(rule),
    instruction="Use your tools.",
    tools=[
        paint_room, book_flight, ship, remember, no_args, untyped, Counter(),
        FunctionTool(functools.partial(_greet, "Hello")),
        LongRunningFunctionTool(approve),
    ],
)

TURNS = ["book a flight", "ship my parcel", "paint the rooms", "remember this", "thanks"]
