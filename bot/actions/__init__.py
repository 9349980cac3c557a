"""The action server (rasa-sdk, our Python env), run as

    .venv/bin/python -m rasa_sdk --actions bot.actions --port 5055

rasa-sdk imports every module here and registers each Action subclass:
- slots.py        action_validate_slot_mappings: the extractor fills the profile slots
- form.py         validate_sizing_form: asks for what is missing, re-asks unusable answers
- recommend.py    action_recommend, action_what_if, action_explain, action_compare
- knowledge.py    action_answer_knowledge
- conversation.py action_fallback, action_capabilities, action_out_of_scope, action_restart
- handoff.py      validate_handoff_form, action_handoff: the request recorded and sent
                  (advisor/handoffs/handoff.py)
"""

from advisor.service import warm_up

# rasa-sdk imports this package once at start: load the extractor, rules and knowledge
# now rather than during the first conversation's first turn
warm_up()
