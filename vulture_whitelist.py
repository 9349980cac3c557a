"""Names vulture (`make lint`, configured in pyproject.toml) would call dead code but a
framework uses: Rasa finds them by class or method name, pydantic reads and writes the
fields from YAML and JSON. Routes, validators, typer commands, fixtures and our own
registries are skipped by their decorators (pyproject.toml), so they are not listed here.
Add a name here only when something outside our code calls it, and say what."""

from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# --- Rasa -----------------------------------------------------------------------
# actions: the action server registers every Action subclass in bot/actions by its name()
_.ActionGreet
_.ActionGoodbye
_.ActionThank
_.ActionBotChallenge
# channels (bot/credentials.yml names them by module path) and Rasa's OutputChannel methods
_.RestChannel
_.SlackConnector
_.from_credentials
_.get_output_channel
_.send_text_message
_.send_text_with_buttons
_.send_custom_json
_.errors_ignore_retry  # read by Rasa's SlackInput
_._validate_action_result  # Rasa's RemoteAction, replaced by bot/channels/action_validation.py
# NLU components (bot/config.yml names them): Rasa's GraphComponent methods
_.validate_config
_.required_packages
_.process_training_data
_.train

# --- spaCy: the tokenizer protocol (understanding/extraction/tokens.py) --------------------------
_.pipe
_.infix_finditer
_.prefix_search

# --- rules.platform: the Platform record the traffic and physical-build work is being
# built on (its doctest runs them); drop these once code of ours calls them ---------
_.platform_for
_.network
_.collective_tests

# --- fields of pydantic models that no code names: checked when the YAML loads, written
# to the API's JSON, or both ---------------------------------------------------------
# understanding/extraction/resources.py, understanding/extraction/schemas.py (the extractor's YAML files)
_.factors
_.not_after_window
_.not_followed_by
_.not_preceded_by
_.shared_with
_.min_scale
_.min_usd
_.questions_ask
_.wh_questions_ask
_.not_inverted
_.clause_end
_.percent
_.alone
_.questions_too
_.rack_scale_only
_.negation
_.internal
_.needs_context
_.memory_units
_.after_memory
_.in_catalogue
_.digits_regex
# knowledge/catalogue.py, knowledge/schemas.py (knowledge/sources/*.yaml)
_.cages
_.infiniband_throughput_advantage_pct
_.rdma
_.ecosystem
_.best_for
_.switches_per_guide
_.recommended
_.gbps_options
_.load_balancing
_.requires
_.performance_penalty_pct
_.when_to_use
_.switch_cost
# rules/rulebook.py (rules/rulebook/*.yaml), rules/platform.py
_.about
_.busbw_gbytes
_.vendor
_.gpus_per_host
# rules/models.py: the Recommendation contract (enum values and fields of the API's JSON)
_.infiniband
_.infiniband_hdr
_.pp_source
_.state_bytes_per_param
_.idle_gpus
_.hidden_ms
# knowledge/sources/models.yaml (the model-shape table) and rules/models.py's Considered
_.attention_heads
_.overridden_by
# openpyxl cell and sheet attributes set by advisor/render/xlsx.py
_.font
_.number_format
_.freeze_panes
# bot/channels: Rasa calls these overrides and handlers (RestInput, SlackInput, socket.io events)
_._extract_sender
_._extract_input_channel
_._sanitize_user_message
_.SignedSocketIO
_.session_request
_.handle_message
_.user_uttered
# bot/channels/ticket_lock.py: named in bot/endpoints-cluster.yml, Rasa calls lock() with its own signature
_.LeasedRedisLockStore
_.lock
_.lock_lifetime
_.wait_time_in_seconds
# understanding/corrections.py: the phrase lists of understanding/corrections.yaml, read by kind name (getattr)
_.markers
_.negations
_.instead
_.not_a_contrast
# bot/actions/handoff.py: rasa-sdk's FormValidationAction calls validate_<slot> by name
_.validate_contact_email
_.validate_contact_name
_.validate_contact_company
_.validate_handoff_message
# tests/handoff_sinks.py: aiosmtpd and http.server call these handlers by name; sqlite3 reads row_factory
_.handle_DATA
_.do_POST
_.log_message
_.row_factory

# knowledge/topics.py: every source of the topic map names its publisher (validated data, read by people)
_.publisher
