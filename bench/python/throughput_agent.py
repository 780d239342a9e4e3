"""The Python side of `npm run bench:python`: one process, one AgentTracker in background mode, recording N tool
calls round-robin over S sessions as fast as its loop goes, then shutdown(). Prints one JSON line: the time from
the first record to shutdown's return, the agent thread's CPU time per tool_call() (time.thread_time, which
excludes the delivery thread), the wall time of the loop, and the tracker's stats.

Usage: python3 throughput_agent.py <base_url> <api_key> <events> <sessions>
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "src"))

from ats import AgentTracker  # noqa: E402


def tool_fields(index: int) -> dict:
    """The same tool call as the TypeScript bench's (bench/harness/batch-route.ts toolFields)."""
    return {
        "tool_name": "search_orders",
        "tool_input": {"query": f"status of the last order of customer {index % 997}", "limit": 3},
        "tool_output": {
            "results": [
                {"orderId": f"A-{100_000 + index}", "status": "refunded" if index % 7 == 0 else "delivered", "total": 42.5}
            ],
            "tookMs": 12,
        },
    }


def main() -> None:
    base_url, api_key, events, sessions = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    errors: list = []
    ats = AgentTracker(api_key=api_key, base_url=base_url, max_queue_size=max(events, 10_000), on_error=errors.append)
    runs = [ats.start_session(f"python {index}", "bench-agent", f"user-{index}") for index in range(sessions)]
    ats.flush()  # the sessions exist before the clock starts, as the direct runs' do
    before = ats.stats()
    calls = [tool_fields(index) for index in range(events)]
    started = time.perf_counter()
    process_cpu_started = time.process_time()
    cpu_started = time.thread_time()
    for index in range(events):
        runs[index % sessions].tool_call(**calls[index])
    loop_cpu = time.thread_time() - cpu_started
    loop_wall = time.perf_counter() - started
    stats = ats.shutdown(timeout=120)
    seconds = time.perf_counter() - started
    process_cpu = time.process_time() - process_cpu_started
    batch_requests = stats.requests - before.requests
    print(
        json.dumps(
            {
                "events": events,
                "seconds": seconds,
                "eventsPerSecond": events / seconds,
                "loopMs": loop_wall * 1000,
                "cpuMicrosecondsPerCall": loop_cpu * 1e6 / events,
                "wallMicrosecondsPerCall": loop_wall * 1e6 / events,
                # The rest of the process's CPU over the run: the delivery thread (batching, gzip, HTTP, answers).
                "deliveryCpuMicrosecondsPerEvent": max(0.0, process_cpu - loop_cpu) * 1e6 / events,
                "batchRequests": batch_requests,
                "eventsPerBatchRequest": events / max(1, batch_requests),
                "retries": stats.retries - before.retries,
                "bytesSent": stats.bytes_sent - before.bytes_sent,
                "bytesBeforeCompression": stats.bytes_before_compression - before.bytes_before_compression,
                "delivered": stats.events_delivered,
                "failed": stats.events_failed,
                "dropped": stats.events_dropped,
                "errors": [f"{error.code}: {error.message}" for error in errors[:5]],
                "sessionIds": [run.id for run in runs],
                "python": sys.version.split()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
