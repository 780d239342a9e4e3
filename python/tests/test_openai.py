"""``wrap_openai`` against an OpenAI-compatible fake server on 127.0.0.1, through clients shaped like the openai
package's (tests/support/fake_openai.py): chat completions and the Responses API, sync and async, streaming
included; what each call records, and that the client and its answers behave exactly as without the wrapper."""

from __future__ import annotations

import asyncio
import unittest
from typing import Any, Dict, List

from ats import AgentTracker, AtsError, LlmUsage, ModelPrice, wrap_openai
from ats._openai._pricing import cost_at, estimate_cost, find_price
from tests.support.fake_openai import APIConnectionError, APIStatusError, AsyncOpenAI, FakeOpenAIServer, OpenAI, Stream
from tests.support.fake_service import FakeService

KEY = "ats_live_abcdefghijklmnop"
PRICES = {
    "gpt-4o": ModelPrice(input_per_million=2.5, output_per_million=10),
    "gpt-4o-mini": {"input_per_million": 0.15, "output_per_million": 0.6, "cached_input_per_million": 0.075},
}
MESSAGES = [{"role": "system", "content": "You answer refund questions."}, {"role": "user", "content": "How long do refunds take?"}]


class WrapOpenAITest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.openai_server = FakeOpenAIServer()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.openai_server.close()

    def setUp(self) -> None:
        self.service = FakeService()
        self.errors: List[AtsError] = []
        self.ats = AgentTracker(api_key=KEY, base_url=self.service.url, on_error=self.errors.append, flush_interval=0.05)
        self.openai_server.requests.clear()

    def tearDown(self) -> None:
        self.ats.shutdown(2)
        self.service.close()

    def recorded(self) -> List[Dict[str, Any]]:
        self.assertTrue(self.ats.flush(5))
        self.assertEqual(self.errors, [])
        return list(self.service.stored_events.values())

    def session_end(self) -> Dict[str, Any]:
        return next(iter(self.service.sessions.values()))["end"]

    def test_a_chat_completion_is_one_llm_decision_with_tokens_cost_and_a_transcript(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url), prices=PRICES)
        self.assertIsInstance(client, OpenAI)
        with self.ats.session("refund", "support-bot", "u") as run:
            completion = client.chat.completions.create(
                model="gpt-4o-mini",
                messages=MESSAGES,
                temperature=0.2,
                max_tokens=200,
                tools=[{"type": "function", "function": {"name": "lookup_order", "parameters": {}}}],
            )
        self.assertEqual(completion.choices[0].message.content, "Refunds take 5 business days.")
        [event] = self.recorded()
        self.assertEqual(event["eventType"], "llm_decision")
        self.assertEqual(
            event["toolInput"],
            {
                "api": "chat.completions",
                "messageCount": 2,
                "maxTokens": 200,
                "temperature": 0.2,
                "tools": ["lookup_order"],
                "requestedModel": "gpt-4o-mini",
                "model": "gpt-4o-mini-2024-07-18",
            },
        )
        output = event["toolOutput"]
        self.assertEqual(
            {k: output[k] for k in ("promptTokens", "completionTokens", "totalTokens", "finishReason", "id", "cachedTokens")},
            {"promptTokens": 1200, "completionTokens": 30, "totalTokens": 1230, "finishReason": "stop", "id": "chatcmpl-1", "cachedTokens": 1000},
        )
        self.assertGreaterEqual(output["durationMs"], 0)
        # The event spans the call: stamped at its start, its own durationMs the whole milliseconds it took.
        self.assertEqual(event["durationMs"], round(output["durationMs"]))
        self.assertLessEqual(event["occurredAt"], self.session_end()["completedAt"])
        # 200 fresh prompt tokens at 0.15, 1,000 cached at 0.075, 30 completion at 0.6 (per million), by prefix.
        self.assertAlmostEqual(event["estimatedCost"], (200 * 0.15 + 1000 * 0.075 + 30 * 0.6) / 1e6)
        self.assertEqual(
            event["reasoning"],
            "system: You answer refund questions.\nuser: How long do refunds take?\nassistant: Refunds take 5 business days.",
        )
        end = self.session_end()
        self.assertEqual((end["promptTokens"], end["completionTokens"], end["totalTokens"]), (1200, 30, 1230))
        self.assertAlmostEqual(end["estimatedCost"], event["estimatedCost"])
        self.assertEqual(run.usage.total_tokens, 1230)

    def test_a_chat_stream_reads_as_without_the_wrapper_and_records_its_usage(self) -> None:
        plain = list(OpenAI(self.openai_server.base_url).chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True))
        client = wrap_openai(OpenAI(self.openai_server.base_url), prices=PRICES)
        with self.ats.session("stream", "support-bot", "u"):
            stream = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
            self.assertIsInstance(stream, Stream)
            chunks = list(stream)
        # The wrapper asked for usage and hid what that added (the last, usage-only chunk).
        self.assertEqual(self.openai_server.requests[-1]["stream_options"], {"include_usage": True})
        self.assertNotIn("stream_options", self.openai_server.requests[0])
        self.assertEqual(len(chunks), len(plain))
        self.assertEqual("".join(getattr(c.choices[0].delta, "content", None) or "" for c in chunks), "Refunds take 5 business days.")
        [event] = self.recorded()
        output = event["toolOutput"]
        self.assertEqual((output["totalTokens"], output["streamEnd"], output["finishReason"]), (1230, "completed", "stop"))
        self.assertGreaterEqual(output["timeToFirstChunkMs"], 0)
        self.assertTrue(event["toolInput"]["stream"])
        self.assertTrue(event["reasoning"].endswith("assistant: Refunds take 5 business days."))

    def test_a_stream_left_early_is_recorded_once_as_abandoned(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url))
        with self.ats.session("break", "support-bot", "u"):
            for chunk in client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True):
                if chunk.choices[0].delta.content:
                    break
            with client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True) as stream:
                next(stream)
        events = self.recorded()
        self.assertEqual([e["toolOutput"]["streamEnd"] for e in events], ["abandoned", "abandoned"])

    def test_stream_options_set_by_the_caller_are_left_alone(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url))
        with self.ats.session("own options", "support-bot", "u"):
            chunks = list(
                client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True, stream_options={"include_usage": True})
            )
        self.assertEqual(chunks[-1].choices, [])  # the usage chunk, as the caller asked
        self.assertEqual(self.recorded()[0]["toolOutput"]["totalTokens"], 1230)

    def test_responses_api_plain_and_streamed(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url), prices=PRICES)
        with self.ats.session("responses", "research-bot", "u"):
            response = client.responses.create(model="gpt-4o", instructions="Be brief.", input="Summarise the policy")
            streamed = [event.type for event in client.responses.create(model="gpt-4o", input=[{"role": "user", "content": "Again"}], stream=True)]
        self.assertEqual(response.output[0].content[0].text, "Refunds take 5 business days.")
        self.assertEqual(streamed[0], "response.created")
        plain, stream = self.recorded()
        for event in (plain, stream):
            self.assertEqual(event["toolInput"]["api"], "responses")
            self.assertEqual(event["toolInput"]["model"], "gpt-4o-2024-08-06")
            self.assertEqual(
                (event["toolOutput"]["promptTokens"], event["toolOutput"]["completionTokens"], event["toolOutput"]["reasoningTokens"]),
                (500, 40, 12),
            )
            self.assertAlmostEqual(event["estimatedCost"], (500 * 2.5 + 40 * 10) / 1e6)
        self.assertEqual(plain["reasoning"], "system: Be brief.\nuser: Summarise the policy\nassistant: Refunds take 5 business days.")
        self.assertEqual(stream["toolOutput"]["streamEnd"], "completed")
        self.assertTrue(stream["reasoning"].endswith("assistant: Refunds take 5 business days."))

    def test_the_async_client_and_async_streams(self) -> None:
        client = wrap_openai(AsyncOpenAI(self.openai_server.base_url))

        @self.ats.trace(agent_name="async-support-bot")
        async def answer() -> str:
            completion = await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            texts = []
            async for event in await client.responses.create(model="gpt-4o", input="Hi", stream=True):
                if event.type == "response.output_text.delta":
                    texts.append(event.delta)
            return completion.choices[0].message.content + " / " + "".join(texts)

        self.assertEqual(asyncio.run(answer()), "Refunds take 5 business days. / Refunds take 5 business days.")
        chat, responses = self.recorded()
        self.assertEqual((chat["toolInput"]["api"], chat["toolOutput"]["totalTokens"]), ("chat.completions", 1230))
        self.assertEqual((responses["toolOutput"]["streamEnd"], responses["toolOutput"]["totalTokens"]), ("completed", 540))

    def test_a_failed_call_is_an_error_event_and_the_exception_passes_unchanged(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url))
        with self.ats.session("failing", "support-bot", "u"):
            with self.assertRaises(APIStatusError) as caught:
                client.chat.completions.create(model="rate-limited", messages=MESSAGES)
            with self.assertRaises(APIConnectionError):
                list(client.chat.completions.create(model="cut", messages=MESSAGES, stream=True))
        self.assertEqual(caught.exception.status_code, 429)
        failed, cut_decision, cut_error = self.recorded()
        self.assertEqual(failed["eventType"], "error")
        self.assertEqual(
            {k: failed["toolInput"][k] for k in ("api", "model", "status", "code", "type", "requestId")},
            {"api": "chat.completions", "model": "rate-limited", "status": 429, "code": "rate_limit_exceeded", "type": "requests", "requestId": "req_123"},
        )
        self.assertEqual(failed["reasoning"], "APIStatusError: Error code: 429")
        self.assertEqual((cut_decision["eventType"], cut_decision["toolOutput"]["streamEnd"]), ("llm_decision", "failed"))
        self.assertEqual((cut_error["eventType"], cut_error["reasoning"]), ("error", "APIConnectionError: the stream ended without [DONE]"))

    def test_capture_content_false_records_no_text(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url), capture_content=False)
        with self.ats.session("private", "support-bot", "u"):
            client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        [event] = self.recorded()
        self.assertNotIn("reasoning", event)
        self.assertEqual(event["toolOutput"]["totalTokens"], 1230)
        wire = b"".join(r.raw for r in self.service.requests if r.headers.get("content-encoding") != "gzip")
        self.assertNotIn(b"refund", wire.lower())

    def test_outside_a_run_calls_pass_through_and_derived_clients_stay_wrapped(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url))
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        self.assertIs(client.models, client.models)
        derived = client.with_options(timeout=5)
        self.assertIsInstance(derived, OpenAI)
        self.assertEqual(derived.timeout, 5)
        run = self.ats.start_session("explicit run", "support-bot", "u")
        wrap_openai(OpenAI(self.openai_server.base_url), run=run).chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        with run:
            derived.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        self.assertEqual(len(self.recorded()), 2)

    def test_the_cost_function_wins_and_falls_back_to_prices_when_it_fails(self) -> None:
        def cost(model: str, usage: LlmUsage) -> float:
            if model.startswith("gpt-4o-mini"):
                raise RuntimeError("no price service")
            return 1.5

        client = wrap_openai(OpenAI(self.openai_server.base_url), prices=PRICES, cost=cost)
        with self.ats.session("costs", "support-bot", "u"):
            client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            client.responses.create(model="gpt-4o", input="Hi")
        mini, full = self.recorded()
        self.assertAlmostEqual(mini["estimatedCost"], (200 * 0.15 + 1000 * 0.075 + 30 * 0.6) / 1e6)
        self.assertEqual(full["estimatedCost"], 1.5)


# The fake's counts as the event sends them: OpenAI's names mapped, nothing computed.
GPT_4O_MINI_USAGE = {"promptTokens": 1200, "completionTokens": 30, "totalTokens": 1230, "cacheReadTokens": 1000, "reasoningTokens": 0}
O3_USAGE = {"promptTokens": 800, "completionTokens": 300, "totalTokens": 1100, "cacheReadTokens": 512, "reasoningTokens": 256}
MINE = (200 * 0.15 + 1000 * 0.075 + 30 * 0.6) / 1e6


class ModelAndUsageTest(unittest.TestCase):
    """What ``wrap_openai`` sends: the response's model and OpenAI's usage as the event's own ``model`` and ``usage``
    (asserted on the events the fake service received), and ``estimatedCost`` only from the caller's prices."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.openai_server = FakeOpenAIServer()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.openai_server.close()

    def setUp(self) -> None:
        self.service = FakeService()
        self.errors: List[AtsError] = []
        self.ats = AgentTracker(api_key=KEY, base_url=self.service.url, on_error=self.errors.append, flush_interval=0.05)

    def tearDown(self) -> None:
        self.ats.shutdown(2)
        self.service.close()

    def sent(self) -> List[Dict[str, Any]]:
        self.assertTrue(self.ats.flush(5))
        self.assertEqual(self.errors, [])
        return [event for batch in self.service.batches() for event in batch.body["events"]]

    def session_end(self) -> Dict[str, Any]:
        return next(iter(self.service.sessions.values()))["end"]

    def test_plain_calls_send_model_and_usage_exactly_and_no_cost_without_a_price_table(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url))
        with self.ats.session("usage", "support-bot", "u"):
            client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            client.chat.completions.create(model="o3", messages=MESSAGES)
            client.responses.create(model="o3", input="Think")
        events = self.sent()
        self.assertEqual(
            [(e["model"], e["usage"]) for e in events],
            [("gpt-4o-mini-2024-07-18", GPT_4O_MINI_USAGE), ("o3-2025-04-16", O3_USAGE), ("o3-2025-04-16", O3_USAGE)],
        )
        for event in events:
            self.assertNotIn("estimatedCost", event)
        # The old content stays where it was.
        self.assertEqual(events[1]["toolInput"]["model"], "o3-2025-04-16")
        self.assertEqual(
            {k: events[1]["toolOutput"][k] for k in ("promptTokens", "completionTokens", "totalTokens", "cachedTokens", "reasoningTokens")},
            {"promptTokens": 800, "completionTokens": 300, "totalTokens": 1100, "cachedTokens": 512, "reasoningTokens": 256},
        )
        # The service prices the events: the end carries the token totals and no partial cost.
        end = self.session_end()
        self.assertEqual((end["promptTokens"], end["completionTokens"], end["totalTokens"]), (2800, 630, 3430))
        self.assertNotIn("estimatedCost", end)

    def test_streams_send_the_last_chunks_usage_exactly(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url))
        with self.ats.session("streams", "support-bot", "u"):
            list(client.chat.completions.create(model="o3", messages=MESSAGES, stream=True))
            list(client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True, stream_options={"include_usage": True}))
            list(client.responses.create(model="o3", input="Think", stream=True))
        events = self.sent()
        self.assertEqual(
            [(e["model"], e["usage"], e["toolOutput"]["streamEnd"]) for e in events],
            [
                ("o3-2025-04-16", O3_USAGE, "completed"),
                ("gpt-4o-mini-2024-07-18", GPT_4O_MINI_USAGE, "completed"),
                ("o3-2025-04-16", O3_USAGE, "completed"),
            ],
        )
        for event in events:
            self.assertNotIn("estimatedCost", event)

    def test_async_streams_send_model_and_usage_too(self) -> None:
        client = wrap_openai(AsyncOpenAI(self.openai_server.base_url))

        @self.ats.trace(agent_name="async-usage-bot")
        async def answer() -> None:
            async for _ in await client.chat.completions.create(model="o3", messages=MESSAGES, stream=True):
                pass
            await client.responses.create(model="o3", input="Think")

        asyncio.run(answer())
        self.assertEqual([(e["model"], e["usage"]) for e in self.sent()], [("o3-2025-04-16", O3_USAGE)] * 2)

    def test_a_stream_without_include_usage_sends_its_model_and_no_usage(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url), include_stream_usage=False)
        with self.ats.session("no usage", "support-bot", "u"):
            list(client.chat.completions.create(model="o3", messages=MESSAGES, stream=True))
        [event] = self.sent()
        self.assertEqual(event["model"], "o3-2025-04-16")
        self.assertNotIn("usage", event)
        self.assertNotIn("estimatedCost", event)

    def test_with_a_price_table_the_callers_price_is_sent_and_an_unpriced_model_is_left_to_the_service(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url), prices=PRICES)
        with self.ats.session("priced", "support-bot", "u"):
            client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            list(client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True))
            client.responses.create(model="o3", input="not in my table")
        priced, streamed, left = self.sent()
        self.assertEqual((priced["usage"], streamed["usage"], left["usage"]), (GPT_4O_MINI_USAGE, GPT_4O_MINI_USAGE, O3_USAGE))
        self.assertAlmostEqual(priced["estimatedCost"], MINE, places=15)
        self.assertAlmostEqual(streamed["estimatedCost"], MINE, places=15)
        self.assertNotIn("estimatedCost", left)
        self.assertNotIn("estimatedCost", self.session_end())

    def test_a_cost_function_is_sent_and_when_every_call_is_priced_the_end_carries_the_sum(self) -> None:
        client = wrap_openai(OpenAI(self.openai_server.base_url), prices=PRICES, cost=lambda model, usage: 0.125 if model.startswith("o3") else None)
        with self.ats.session("all priced", "support-bot", "u"):
            client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            client.responses.create(model="o3", input="Think")
        mini, o3 = self.sent()
        self.assertAlmostEqual(mini["estimatedCost"], MINE, places=15)
        self.assertEqual((o3["estimatedCost"], o3["usage"]), (0.125, O3_USAGE))
        self.assertAlmostEqual(self.session_end()["estimatedCost"], MINE + 0.125, places=12)


class RunModelAndUsageTest(unittest.TestCase):
    """``model`` and ``usage`` on the run's methods: checked like the token counts always were (a bad value is left
    out, the event is still sent), added to the run's totals."""

    def setUp(self) -> None:
        self.service = FakeService()
        self.errors: List[AtsError] = []
        self.ats = AgentTracker(api_key=KEY, base_url=self.service.url, on_error=self.errors.append, flush_interval=0.05)

    def tearDown(self) -> None:
        self.ats.shutdown(2)
        self.service.close()

    def sent(self) -> List[Dict[str, Any]]:
        self.assertTrue(self.ats.flush(5))
        self.assertEqual(self.errors, [])
        return [event for batch in self.service.batches() for event in batch.body["events"]]

    def test_llm_call_merges_flat_counts_and_usage_and_leaves_out_bad_values(self) -> None:
        with self.ats.session("llm", "bot", "u") as run:
            run.llm_call("  gpt-4o  ", prompt_tokens=10, completion_tokens=5)
            run.llm_call(
                "claude-sonnet-4-5",
                prompt_tokens=99,
                usage={"prompt_tokens": 100, "completionTokens": 20, "cache_read_tokens": 60, "cache_write_tokens": 30},
            )
            run.llm_call(
                "o3",
                usage={"prompt_tokens": -1, "completion_tokens": 2.5, "total_tokens": 10**12 + 1, "reasoning_tokens": 7, "bogus": 3, "cache_read_tokens": True},
            )
            run.llm_call("x" * 257, usage={"prompt_tokens": float("nan")})
            run.llm_call("   ", total_tokens=10**12, usage={"completion_tokens": 4.0})
        events = self.sent()
        self.assertEqual(
            [(e.get("model"), e.get("usage")) for e in events],
            [
                ("gpt-4o", {"promptTokens": 10, "completionTokens": 5}),
                ("claude-sonnet-4-5", {"promptTokens": 100, "completionTokens": 20, "cacheReadTokens": 60, "cacheWriteTokens": 30}),
                ("o3", {"reasoningTokens": 7}),
                (None, None),
                (None, {"completionTokens": 4, "totalTokens": 10**12}),
            ],
        )
        self.assertNotIn("model", events[3])
        self.assertNotIn("usage", events[3])
        self.assertEqual(events[0]["toolInput"]["model"], "  gpt-4o  ")
        self.assertEqual(events[0]["toolOutput"], {"promptTokens": 10, "completionTokens": 5, "totalTokens": 15})
        end = next(iter(self.service.sessions.values()))["end"]
        self.assertEqual((end["promptTokens"], end["completionTokens"], end["totalTokens"]), (110, 29, 10**12 + 135))
        self.assertNotIn("estimatedCost", end)

    def test_the_other_methods_take_model_and_usage(self) -> None:
        with self.ats.session("others", "bot", "u") as run:
            run.tool_call("embed", {"text": "hi"}, model="text-embedding-3-small", usage={"prompt_tokens": 8, "total_tokens": 8})
            run.decision("pick", model="gpt-4o", usage={"prompt_tokens": 3, "completion_tokens": 2}, estimated_cost=0.5)
            run.state_change(to="done", model="gpt-4o")
            run.error("quota", model="gpt-4o", usage={"promptTokens": 1})
        events = self.sent()
        self.assertEqual(
            [(e["eventType"], e.get("model"), e.get("usage"), e.get("estimatedCost")) for e in events],
            [
                ("tool_call", "text-embedding-3-small", {"promptTokens": 8, "totalTokens": 8}, None),
                ("llm_decision", "gpt-4o", {"promptTokens": 3, "completionTokens": 2}, 0.5),
                ("state_change", "gpt-4o", None, None),
                ("error", "gpt-4o", {"promptTokens": 1}, None),
            ],
        )
        end = next(iter(self.service.sessions.values()))["end"]
        self.assertEqual((end["promptTokens"], end["completionTokens"], end["totalTokens"]), (12, 2, 14))
        self.assertNotIn("estimatedCost", end)
        self.assertEqual((run.usage.estimated_cost, run.usage.has_server_priced_events), (0.5, True))

    def test_a_run_priced_by_its_caller_alone_still_sends_the_sum(self) -> None:
        with self.ats.session("mine", "bot", "u") as run:
            run.llm_call("gpt-4o", prompt_tokens=10, completion_tokens=5, estimated_cost=0.25)
            run.tool_call("search", estimated_cost=0.5)
        self.sent()
        self.assertEqual(next(iter(self.service.sessions.values()))["end"]["estimatedCost"], 0.75)
        self.assertFalse(run.usage.has_server_priced_events)


class PricingTest(unittest.TestCase):
    def test_prices_by_exact_name_else_longest_prefix(self) -> None:
        self.assertEqual(find_price(PRICES, "gpt-4o"), PRICES["gpt-4o"])
        self.assertEqual(find_price(PRICES, "gpt-4o-mini-2024-07-18"), ModelPrice(0.15, 0.6, 0.075))
        self.assertEqual(find_price(PRICES, "gpt-4o-2024-08-06"), PRICES["gpt-4o"])
        self.assertIsNone(find_price(PRICES, "o3"))
        self.assertIsNone(find_price({"bad": {"input_per_million": -1, "output_per_million": 1}}, "bad"))

    def test_costs(self) -> None:
        usage = LlmUsage(prompt_tokens=1_000_000, completion_tokens=1_000_000, total_tokens=2_000_000, cached_prompt_tokens=500_000)
        self.assertAlmostEqual(cost_at(ModelPrice(2, 8, 1), usage), 1 + 0.5 + 8)
        self.assertAlmostEqual(cost_at(ModelPrice(2, 8), usage), 2 + 8)
        self.assertIsNone(estimate_cost(PRICES, None, ["gpt-4o"], None))
        self.assertIsNone(estimate_cost(None, lambda m, u: -1.0, ["gpt-4o"], usage))


if __name__ == "__main__":
    unittest.main()
