/** A field that is never left out: no default, or one generated on construction (ids, timestamps). */
export declare const ALWAYS: unique symbol;
/** A field whose default is an empty object (`default_factory=dict` in Python). */
export declare const EMPTY_OBJECT: unique symbol;
/** A field whose default is an empty array (`default_factory=list` in Python). */
export declare const EMPTY_ARRAY: unique symbol;
export type Default = typeof ALWAYS | typeof EMPTY_OBJECT | typeof EMPTY_ARRAY | string | number | null;
/**
 * Each struct's fields in the order wire writes them (a tagged struct's tag
 * first), with the default that wire leaves out (`omit_defaults`).
 */
export declare const FIELDS: {
    msg: ([string, null] | [string, typeof ALWAYS] | [string, typeof EMPTY_OBJECT])[];
    text: ([string, null] | [string, typeof ALWAYS])[];
    thinking: ([string, null] | [string, typeof ALWAYS])[];
    hint: ([string, null] | [string, typeof ALWAYS])[];
    data: ([string, null] | [string, typeof ALWAYS])[];
    tool_call: ([string, null] | [string, string] | [string, typeof ALWAYS] | [string, typeof EMPTY_ARRAY])[];
    tool_result: ([string, null] | [string, string] | [string, typeof ALWAYS] | [string, typeof EMPTY_OBJECT])[];
    base64: [string, typeof ALWAYS][];
    url: [string, typeof ALWAYS][];
    usage: ([string, number] | [string, typeof ALWAYS])[];
    error: ([string, string] | [string, typeof ALWAYS])[];
    rule: [string, typeof ALWAYS][];
};
/**
 * The role table (wire.blocks.ROLE_BLOCKS): which block types a Msg of each
 * role may hold (null: any), and how an error says it.
 */
export declare const ROLE_BLOCKS: {
    user: [string[], string];
    system: [string[], string];
    assistant: null;
};
