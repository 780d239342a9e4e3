"""Pure rules: backoff, Retry-After, retry policy, ids, sampling, JSON conversion, configuration, times, score bodies."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import os
import re
import unittest
from unittest import mock

from ats import AgentTracker, AtsConfigurationError
from ats._backoff import BackoffPolicy, parse_retry_after, retry_delay
from ats._ids import new_event_id, new_idempotency_key, new_session_id, time_digits
from ats._json_value import MAX_DEPTH, dumps, to_json_object, well_formed
from ats._retry_policy import is_retryable_status
from ats._sampling import is_sampled, session_hash_fraction
from ats._score import score_body, score_problem
from ats._times import MAX_DURATION_MS, event_duration_ms, iso_of_ms, ms_of, timestamp

KEY = "ats_live_abcdefghijklmnop"
ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


class BackoffTest(unittest.TestCase):
    def test_full_jitter_between_zero_and_the_doubling_ceiling(self) -> None:
        policy = BackoffPolicy(base_delay=0.25, max_delay=30)
        self.assertEqual(retry_delay(0, policy, None, lambda: 0.0), 0.0)
        self.assertAlmostEqual(retry_delay(0, policy, None, lambda: 0.999), 0.24975)
        self.assertAlmostEqual(retry_delay(3, policy, None, lambda: 0.5), 1.0)
        # The ceiling stops at max_delay, also for absurd retry numbers.
        self.assertAlmostEqual(retry_delay(50, policy, None, lambda: 0.5), 15.0)

    def test_retry_after_is_a_floor_and_may_exceed_the_maximum(self) -> None:
        policy = BackoffPolicy(base_delay=0.25, max_delay=30)
        self.assertEqual(retry_delay(0, policy, 2.0, lambda: 0.1), 2.0)
        self.assertEqual(retry_delay(0, policy, 45.0, lambda: 0.1), 45.0)
        self.assertAlmostEqual(retry_delay(8, policy, 1.0, lambda: 0.5), 15.0)

    def test_parse_retry_after(self) -> None:
        self.assertEqual(parse_retry_after("3"), 3.0)
        self.assertEqual(parse_retry_after(" 0 "), 0.0)
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after(""))
        self.assertIsNone(parse_retry_after("-1"))
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after("Wed, 99 Foo 2026 00:00:00 GMT"))
        now = datetime.datetime(2026, 11, 22, 10, 0, 0, tzinfo=datetime.timezone.utc).timestamp()
        self.assertEqual(parse_retry_after("Sun, 22 Nov 2026 10:00:05 GMT", now), 5.0)
        self.assertEqual(parse_retry_after("Sun, 22 Nov 2026 09:00:00 GMT", now), 0.0)


class RetryPolicyTest(unittest.TestCase):
    def test_what_a_retry_can_fix(self) -> None:
        for status in (408, 425, 429, 500, 502, 503, 504):
            self.assertTrue(is_retryable_status(status, None), status)
        for status in (400, 401, 403, 404, 413, 422):
            self.assertFalse(is_retryable_status(status, None), status)

    def test_only_the_in_progress_409_is_retried(self) -> None:
        in_progress = {"message": "A request with this Idempotency-Key is still being processed; retry shortly"}
        self.assertTrue(is_retryable_status(409, in_progress))
        self.assertFalse(is_retryable_status(409, {"message": "Session already exists with other fields"}))
        self.assertFalse(is_retryable_status(409, "Idempotency-Key still being processed"))


class ScoreBodyTest(unittest.TestCase):
    def test_one_target_named_a_session_with_its_event_or_a_conversation(self) -> None:
        options = {"comment": None, "data_type": None, "source": None}
        self.assertEqual(
            score_body("ses_1", "scr_1", "thumbs", False, event_id="evt_1", **options),
            {"id": "scr_1", "sessionId": "ses_1", "eventId": "evt_1", "name": "thumbs", "value": False, "source": "sdk"},
        )
        self.assertEqual(
            score_body(
                None, "scr_2", "resolved", "yes", event_id=None, comment="ok", data_type="categorical",
                source="evaluator", conversation_id="chat-7",
            ),  # fmt: skip
            {
                "id": "scr_2",
                "conversationId": "chat-7",
                "name": "resolved",
                "value": "yes",
                "source": "evaluator",
                "comment": "ok",
                "dataType": "categorical",
            },
        )

    def test_what_the_client_refuses_before_sending(self) -> None:
        self.assertIsNone(score_problem("resolved", True))
        self.assertIsNone(score_problem("helpfulness", 0))
        self.assertEqual(score_problem(" ", 1), "a score needs a name")
        self.assertEqual(score_problem("x", float("nan")), "score x: value must be finite")
        self.assertEqual(score_problem("x", ""), "score x: a label must not be empty")
        self.assertEqual(score_problem("x", None), "score x: value must be a number, a boolean or a label")


class IdsTest(unittest.TestCase):
    def test_session_ids_are_ulids_with_the_time_first(self) -> None:
        session_id = new_session_id(1795305600123)
        self.assertTrue(session_id.startswith("ses_"))
        self.assertRegex(session_id[4:], ULID)
        # The same digits as the TypeScript client mints for that millisecond (sdk/src/ids.ts).
        self.assertEqual(session_id[:14], "ses_01M808TX3V")
        self.assertEqual(time_digits(0), "0000000000")
        self.assertEqual(time_digits(2**48 - 1), "7ZZZZZZZZZ")
        self.assertNotEqual(new_session_id(), new_session_id())

    def test_event_ids_are_monotonic_within_a_millisecond_and_across_a_clock_step_back(self) -> None:
        ids = [new_event_id(1795305600000) for _ in range(1000)]
        ids.append(new_event_id(1795305599000))  # the clock went back: still after the others
        ids.append(new_event_id(1795305601000))
        self.assertEqual(ids, sorted(ids))
        self.assertEqual(len(set(ids)), len(ids))
        for event_id in ids:
            self.assertRegex(event_id[4:], ULID)

    def test_idempotency_keys_are_fresh_uuids(self) -> None:
        keys = {new_idempotency_key() for _ in range(100)}
        self.assertEqual(len(keys), 100)
        self.assertRegex(next(iter(keys)), r"^[0-9a-f-]{36}$")


class SamplingTest(unittest.TestCase):
    def test_the_same_hash_as_the_typescript_client(self) -> None:
        # sdk/src/sampling.ts gives 0.2366271559149027 for this id.
        self.assertEqual(session_hash_fraction("ses_01M89Q2KFSQTA6RQ3ERKQ7GXZ2"), 0.2366271559149027)

    def test_whole_sessions_in_or_out_at_about_the_rate(self) -> None:
        ids = [new_session_id() for _ in range(4000)]
        kept = [session_id for session_id in ids if is_sampled(session_id, 0.25)]
        self.assertTrue(800 < len(kept) < 1200, len(kept))
        self.assertEqual(kept, [session_id for session_id in ids if is_sampled(session_id, 0.25)])
        self.assertTrue(all(is_sampled(session_id, 1) for session_id in ids[:10]))
        self.assertFalse(any(is_sampled(session_id, 0) for session_id in ids[:10]))


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Order:
    order_id: str
    total: float
    shipped_at: datetime.datetime


class Model:
    """Shaped like a pydantic model."""

    def __init__(self) -> None:
        self.hidden = "not this"

    def model_dump(self) -> dict:
        return {"field": 1}


class Hostile:
    @property
    def __dict__(self) -> dict:  # type: ignore[override]
        raise RuntimeError("no")

    def __str__(self) -> str:
        raise RuntimeError("no either")


class JsonValueTest(unittest.TestCase):
    def test_plain_data_is_kept_and_other_values_become_json(self) -> None:
        when = datetime.datetime(2026, 11, 22, 10, 0, tzinfo=datetime.timezone.utc)
        value = to_json_object(
            {
                "order": Order("A-1", 42.5, when),
                "model": Model(),
                "color": Color.RED,
                "tags": {"b"},
                "pair": (1, 2),
                "blob": b"\x00\x01",
                "nan": float("nan"),
                "inf": float("-inf"),
                7: "int key",
                None: "none key",
                "fn": print,
                "__proto__": "data",
                "constructor": {"prototype": 1},
            }
        )
        self.assertEqual(
            value,
            {
                "order": {"order_id": "A-1", "total": 42.5, "shipped_at": "2026-11-22T10:00:00+00:00"},
                "model": {"field": 1},
                "color": "red",
                "tags": ["b"],
                "pair": [1, 2],
                "blob": "[binary 2 bytes]",
                "nan": "nan",
                "inf": "-inf",
                "7": "int key",
                "null": "none key",
                "__proto__": "data",
                "constructor": {"prototype": 1},
            },
        )
        json.loads(dumps(value))

    def test_non_objects_are_wrapped_as_value(self) -> None:
        self.assertEqual(to_json_object(3), {"value": 3})
        self.assertEqual(to_json_object("text"), {"value": "text"})
        self.assertEqual(to_json_object([1, "a"]), {"value": [1, "a"]})
        self.assertEqual(to_json_object(None), {"value": None})

    def test_cycles_depth_surrogates_and_hostile_objects_never_raise(self) -> None:
        cycle: dict = {"name": "loop"}
        cycle["self"] = cycle
        self.assertEqual(to_json_object(cycle), {"name": "loop", "self": "[circular]"})
        deep: dict = {}
        node = deep
        for _ in range(60):
            node["n"] = {}
            node = node["n"]
        node = json.loads(dumps(to_json_object(deep)))
        levels = 0
        while isinstance(node, dict):
            node, levels = node["n"], levels + 1
        # The service accepts 32 levels: below MAX_DEPTH the rest is one JSON string, itself the rest of the tree.
        self.assertEqual(levels, MAX_DEPTH - 1)
        self.assertIsInstance(node, str)
        self.assertEqual(node.count("{"), 60 - levels + 1)
        self.assertEqual(well_formed("a\ud800b"), "a\ufffdb")
        self.assertEqual(well_formed("\ud83d\ude00"), "\U0001F600")
        self.assertEqual(to_json_object({"bad\udc00key": "x\ud800"}), {"bad\ufffdkey": "x\ufffd"})
        self.assertEqual(to_json_object({"h": Hostile()}), {"h": "[unserializable]"})

    def test_exceptions_keep_type_message_traceback_and_cause(self) -> None:
        try:
            try:
                raise KeyError("card")
            except KeyError as inner:
                raise ValueError("payment failed") from inner
        except ValueError as error:
            value = to_json_object({"error": error})["error"]
        self.assertEqual(value["name"], "ValueError")
        self.assertEqual(value["message"], "payment failed")
        self.assertIn("Traceback", value["stack"])
        self.assertEqual(value["cause"]["name"], "KeyError")


class TimesTest(unittest.TestCase):
    def test_wire_timestamps(self) -> None:
        self.assertEqual(iso_of_ms(1795305600123), "2026-11-22T00:00:00.123Z")
        self.assertEqual(ms_of("2026-11-22T00:00:00.123Z"), 1795305600123)
        self.assertEqual(ms_of("2026-11-22T01:00:00.123+01:00"), 1795305600123)
        self.assertEqual(ms_of(datetime.datetime(2026, 11, 22, 0, tzinfo=datetime.timezone.utc)), 1795305600000)
        self.assertEqual(ms_of(1795305600.5), 1795305600500)
        self.assertIsNone(ms_of("yesterday"))
        self.assertIsNone(ms_of(True))
        self.assertRegex(timestamp("not a time"), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


class EventDurationTest(unittest.TestCase):
    def test_whole_milliseconds_from_zero_to_a_year_else_not_sent(self) -> None:
        self.assertEqual(MAX_DURATION_MS, 31_536_000_000)
        self.assertEqual(
            [event_duration_ms(v) for v in (0, 0.4, 2000, 1234.6, MAX_DURATION_MS)], [0, 0, 2000, 1235, MAX_DURATION_MS]
        )
        for refused in (-1, -0.6, MAX_DURATION_MS + 1, float("nan"), float("inf"), True, "2000", None):
            self.assertIsNone(event_duration_ms(refused), refused)


class ConfigurationTest(unittest.TestCase):
    def assert_refused(self, message: str, **options: object) -> None:
        with self.assertRaises(AtsConfigurationError) as caught:
            AgentTracker(**options)  # type: ignore[arg-type]
        self.assertIn(message, str(caught.exception))
        self.assertEqual(caught.exception.code, "configuration")

    def test_misuse_raises_at_construction(self) -> None:
        with mock.patch.dict(os.environ, {"ATS_API_KEY": "", "ATS_BASE_URL": ""}):
            self.assert_refused("No API key", base_url="http://127.0.0.1:3000")
            self.assert_refused("No base URL", api_key=KEY)
        url = "http://127.0.0.1:3000"
        self.assert_refused("does not look like an ats key", api_key="sk-123", base_url=url)
        self.assert_refused("must be http(s)", api_key=KEY, base_url="ftp://example.com")
        self.assert_refused("must be http(s)", api_key=KEY, base_url="example.com")
        self.assert_refused("credentials, a query or a fragment", api_key=KEY, base_url="https://u:p@example.com")
        self.assert_refused("credentials, a query or a fragment", api_key=KEY, base_url="https://example.com/?a=1")
        self.assert_refused('mode must be "background" or "immediate"', api_key=KEY, base_url=url, mode="lazy")
        self.assert_refused("sample_rate must be a number from 0 to 1", api_key=KEY, base_url=url, sample_rate=1.5)
        self.assert_refused("max_queue_size must be an integer", api_key=KEY, base_url=url, max_queue_size=0)
        self.assert_refused("max_batch_size must be an integer from 1 to 100", api_key=KEY, base_url=url, max_batch_size=101)
        self.assert_refused("flush_interval must be a number of seconds", api_key=KEY, base_url=url, flush_interval=-1)
        self.assert_refused("on_error must be callable", api_key=KEY, base_url=url, on_error="print")
        self.assert_refused("mask must be callable", api_key=KEY, base_url=url, mask=42)

    def test_environment_fallbacks(self) -> None:
        with mock.patch.dict(os.environ, {"ATS_API_KEY": KEY, "ATS_BASE_URL": "https://api.example.com/prod/"}):
            tracker = AgentTracker()
        self.assertEqual(tracker._options.base_url, "https://api.example.com/prod")
        self.assertEqual(tracker._options.api_key, KEY)
        tracker.shutdown(0)



class PublicSurfaceTest(unittest.TestCase):
    def test_every_public_name_and_method_has_a_docstring(self) -> None:
        import inspect

        import ats

        missing = []
        for name in ats.__all__:
            value = getattr(ats, name)
            if name.startswith("__"):
                continue
            if not (inspect.getdoc(value) or "").strip():
                missing.append(name)
            if inspect.isclass(value):
                for attribute, member in vars(value).items():
                    if attribute.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                        continue
                    if not (inspect.getdoc(member) or "").strip():
                        missing.append(f"{name}.{attribute}")
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
