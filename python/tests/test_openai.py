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
