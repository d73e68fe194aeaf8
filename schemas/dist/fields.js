// Generated from wire's msgspec model by `python -m wire schema`; do not edit.
// `python -m wire schema --check` fails when this file differs from the model.
/** A field that is never left out: no default, or one generated on construction (ids, timestamps). */
export const ALWAYS = Symbol("always");
/** A field whose default is an empty object (`default_factory=dict` in Python). */
export const EMPTY_OBJECT = Symbol("{}");
/** A field whose default is an empty array (`default_factory=list` in Python). */
export const EMPTY_ARRAY = Symbol("[]");
/**
 * Each struct's fields in the order wire writes them (a tagged struct's tag
 * first), with the default that wire leaves out (`omit_defaults`).
 */
export const FIELDS = {
    msg: [["name", ALWAYS], ["content", ALWAYS], ["role", ALWAYS], ["id", ALWAYS], ["metadata", EMPTY_OBJECT],
        ["created_at", ALWAYS], ["usage", null], ["finished_at", null], ["finished_reason", null],
        ["structured_output", null], ["error", null]],
    text: [["type", ALWAYS], ["text", ALWAYS], ["id", ALWAYS], ["created_at", ALWAYS], ["finished_at", null]],
    thinking: [["type", ALWAYS], ["thinking", ALWAYS], ["id", ALWAYS], ["created_at", ALWAYS], ["finished_at", null]],
    hint: [["type", ALWAYS], ["hint", ALWAYS], ["id", ALWAYS], ["source", null], ["created_at", ALWAYS],
        ["finished_at", ALWAYS]],
    data: [["type", ALWAYS], ["id", ALWAYS], ["source", ALWAYS], ["name", null], ["created_at", ALWAYS],
        ["finished_at", null]],
    tool_call: [["type", ALWAYS], ["id", ALWAYS], ["name", ALWAYS], ["input", ALWAYS], ["state", "pending"],
        ["suggested_rules", EMPTY_ARRAY], ["created_at", ALWAYS], ["finished_at", null]],
    tool_result: [["type", ALWAYS], ["id", ALWAYS], ["name", ALWAYS], ["output", ALWAYS], ["state", "running"],
        ["metadata", EMPTY_OBJECT], ["created_at", ALWAYS], ["finished_at", null]],
    base64: [["type", ALWAYS], ["data", ALWAYS], ["media_type", ALWAYS]],
    url: [["type", ALWAYS], ["url", ALWAYS], ["media_type", ALWAYS]],
    usage: [["input_tokens", ALWAYS], ["output_tokens", ALWAYS], ["cache_input_tokens", 0],
        ["cache_creation_input_tokens", 0]],
    error: [["type", "unknown"], ["message", ALWAYS]],
    rule: [["tool_name", ALWAYS], ["rule_content", ALWAYS], ["behavior", ALWAYS], ["source", ALWAYS]],
};
/**
 * The role table (wire.blocks.ROLE_BLOCKS): which block types a Msg of each
 * role may hold (null: any), and how an error says it.
 */
export const ROLE_BLOCKS = {
    user: [["data", "text"], "text and data blocks"],
    system: [["text"], "text blocks"],
    assistant: null,
};
