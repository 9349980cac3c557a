"""One router per resource; `api.app.create_app` includes them all.

Every endpoint is `async def` and does its work on the event loop, on purpose. The work
is CPU-bound and short (measured on 2 cores: a recommendation 2-4 ms, an SVG 5-8 ms, a
search under 2 ms, a stored recommendation 0.1 ms), so the thread pool buys no
parallelism under the GIL and costs two hops per request (endpoint and response
validation): with plain `def` endpoints POST /v1/recommendations served about a third
fewer requests per second and POST /v1/ask a half to two thirds fewer (bench/api.py).
More throughput comes from more uvicorn workers, not threads.
"""
