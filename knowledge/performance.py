"""Typed access to the GPU facts and published collective results the traffic model uses.

    >>> from knowledge import performance
    >>> performance.gpu("H100").memory_gb
    80.0
    >>> performance.gpu("NVIDIA H200 SXM").bf16_dense_tflops
    989.0

From `knowledge/sources/gpus.yaml` and `nccl_results.yaml`, read once per process. `gpu()`
returns None for an unknown model; callers then assume an H100 and say so.
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge import catalogue, sources


class Gpu(BaseModel):
    """A GPU's memory and dense BF16 throughput."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    gpu_model: str
    memory_gb: float = Field(gt=0)
    bf16_dense_tflops: float = Field(gt=0)
    source: str


class ModelShape(BaseModel):
    """A published model's shape (knowledge/sources/models.yaml)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    model: str
    params_b: float = Field(gt=0)
    active_params_b: float = Field(gt=0)
    layers: int = Field(ge=1)
    hidden_size: int = Field(ge=1)
    attention_heads: int = Field(ge=1)
    experts: int = Field(ge=0)
    experts_per_token: int = Field(ge=0)
    source: str

    @property
    def moe(self) -> bool:
        return self.experts > 1


class NcclResult(BaseModel):
    """A published nccl-tests all_reduce_perf result: what was measured, and where."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    title: str
    gpu_model: str
    fabric: Literal["nvlink", "infiniband_hdr", "infiniband_ndr", "rocev2"]
    link_gbps: int = Field(ge=0)
    nodes: int = Field(ge=1)
    gpus_per_node: int = Field(ge=1)
    message_bytes: int = Field(gt=0)
    busbw_gbytes_low: float = Field(gt=0)
    busbw_gbytes_high: float = Field(gt=0)
    source: str


@functools.cache
def _gpus() -> dict[str, Gpu]:
    return {g.gpu_model: g for g in (Gpu.model_validate(r.data) for r in sources.of_kinds("gpus"))}


@functools.lru_cache(maxsize=1024)
def gpu(gpu_model: str | None) -> Gpu | None:
    """The GPU facts of a model name as people write it ("h100", "GB200 NVL72"), or None."""
    server = catalogue.server_for(gpu_model)
    return _gpus().get(server.gpu_model) if server else None


def gpus() -> list[Gpu]:
    return list(_gpus().values())


@functools.cache
def models() -> tuple[ModelShape, ...]:
    """The published model shapes, in file order."""
    return tuple(ModelShape.model_validate(r.data) for r in sources.of_kinds("models"))


MODEL_MATCH = 0.02  # a size within 2 % of a published model's is taken to be that model


def model_shape(params_b: float | None, moe: bool | None = None) -> ModelShape | None:
    """The published model of this size (within 2 %), or None.

    The profile carries no model name, only its size: 405 is Llama 3 405B, 671 DeepSeek-V3.
    `moe` False skips mixtures of experts, True skips dense models; None takes either."""
    if not params_b:
        return None
    for shape in models():
        if abs(params_b - shape.params_b) <= MODEL_MATCH * shape.params_b and (moe is None or moe == shape.moe):
            return shape
    return None


@functools.cache
def nccl_results() -> tuple[NcclResult, ...]:
    """Published all_reduce_perf bus bandwidths the estimate is checked against."""
    return tuple(NcclResult.model_validate(r.data) for r in sources.of_kinds("nccl_results"))
