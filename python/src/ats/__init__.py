"""``ats``: the Python client of the Agent Tracking Service.

Record what your agents do (runs, tool calls, decisions, state changes, errors, tokens and cost) without ever
losing, duplicating or blocking: events are queued and sent in compressed batches from one background thread,
retried with idempotency keys, and every problem is reported to ``on_error`` instead of raised into the agent.

    from ats import AgentTracker

    ats = AgentTracker()  # ATS_API_KEY and ATS_BASE_URL from the environment
    with ats.session(name="Refund request", agent_name="support-bot", user_id="customer-42") as run:
        run.tool_call("lookup_order", {"order_id": "A-1"}, {"status": "delivered"})
"""

from ._context import current_run
from ._feedback import FeedbackToken
from ._openai import LlmUsage, ModelPrice, wrap_openai
from ._run import Run, RunUsage
from ._tracker import AgentTracker, TrackerStats, __version__
from ._wrap_tool import wrap_tool
from .errors import AtsConfigurationError, AtsDeliveryError, AtsDroppedEventsError, AtsError, AtsUsageError

__all__ = [
    "AgentTracker",
    "AtsConfigurationError",
    "AtsDeliveryError",
    "AtsDroppedEventsError",
    "AtsError",
    "AtsUsageError",
    "FeedbackToken",
    "LlmUsage",
    "ModelPrice",
    "Run",
    "RunUsage",
    "TrackerStats",
    "__version__",
    "current_run",
    "wrap_openai",
    "wrap_tool",
]
