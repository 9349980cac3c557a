"""One router per resource; `api.app.create_app` includes them all.

Endpoints are `async def`; the ones that compute (answering a question, sizing, drawing,
searching) hand the work to a bounded pool of threads (api.offload) so that the event
loop keeps answering `/healthz` and cheap requests while they run. A thread hop costs
some throughput under the GIL (bench/api.py measured a third fewer recommendations a
second than on the loop), the price of a health check that does not time out under
load; more throughput comes from more uvicorn workers, not threads.
"""
