"""workflow_message_items with `str` items: a JSON list in the message is its items; other text is
one item (the text)."""

from tools.parity.apps.workflow_message_items import words as root_agent  # noqa: F401

SHOW_NODES = True

TURNS = ['["a", "b"]', "plain words"]
