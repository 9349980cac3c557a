"""Rule-based extraction of workload details from a customer's question.

    >>> from understanding.extraction import extract
    >>> result = extract("We will pretrain a 70B model on 128 H100s, budget is tight.")
    >>> result.profile.gpu_count, result.profile.gpu_model, result.profile.model_params_b
    (128, 'H100', 70.0)

A blank spaCy English pipeline with EntityRuler and Matcher patterns kept in
understanding/extraction/data/*.yaml; no statistical model, nothing downloaded, built once per process.

What it reads (fields of rules.models.ProfileDraft):
- workload: training (pretraining, fine-tuning, LoRA, ...), inference (serving, real-time,
  batch inference, ...), or mixed (both said, or "mixed workload").
- gpu_count, node_count, gpus_per_node: "1,024 GPUs", "16k H100s", "sixty-four A100s",
  "8 nodes x 8 GPUs", "12 servers with 4 GPUs each", "2 DGX H200" (GPUs per system from
  the hardware catalogue). When two of the three are stated the third is derived.
- gpu_model, model_params_b (billions), budget_usd (US dollars only), network_budget_usd (a
  budget for the network alone: "$1M for networking"), cost_sensitive,
  existing_ethernet, prefer (a fabric the customer asks for).
- the training plan: tp and pp ("TP 8, PP 16", "8-way tensor parallelism", "pipeline
  parallelism of 4 stages"), moe ("a mixture-of-experts model", "MoE", "Mixtral"; "a dense
  model" is False).
Numbers of other things ("400GbE", "8 rails", "64 ports", "16 TB", "2025", "50%") stay out.
"""

from understanding.extraction.extractor import extract, fabrics_named
from understanding.extraction.models import Extraction, Span

__all__ = ["Extraction", "Span", "extract", "fabrics_named"]
