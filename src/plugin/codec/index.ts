/**
 * The cty value codec the plugin layer speaks to Terraform with: msgpack both ways (what
 * Terraform sends and what it expects back), JSON values for DynamicValue.json and
 * raw_state.json, and type JSON for schemas.
 */
export { CodecError } from "./errors";
export { encodeValue, decodeValue } from "./msgpack";
export { decodeJsonValue, encodeTypeJson } from "./json";
