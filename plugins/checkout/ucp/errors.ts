/**
 * UCP's own error wire (overview.md "Error Handling", signatures.md "Error Handling"): a transport
 * error is `{code, content, continue_url?}` with the spec's HTTP status, and over MCP a JSON-RPC
 * error whose `data` is that object. These never use svc's SPEC 7 envelope: an agent written
 * against the UCP spec reads `code` at the top level.
 */

/** Every transport-level code svc answers on the UCP routes, with the spec's REST status and MCP code. */
export const UCP_ERRORS = {
  invalid_profile_url: { status: 400, mcp: -32001 },
  profile_unreachable: { status: 424, mcp: -32001 },
  profile_malformed: { status: 422, mcp: -32001 },
  version_unsupported: { status: 422, mcp: -32001 },
  profile_not_trusted: { status: 403, mcp: -32000 },
  signature_missing: { status: 401, mcp: -32000 },
  signature_invalid: { status: 401, mcp: -32000 },
  key_not_found: { status: 401, mcp: -32000 },
  digest_mismatch: { status: 400, mcp: -32600 },
  algorithm_unsupported: { status: 400, mcp: -32600 },
  // Protocol errors (overview.md table): a reused Idempotency-Key with another body, storage down.
  idempotency_conflict: { status: 409, mcp: -32000 },
  idempotency_in_flight: { status: 409, mcp: -32000 },
  service_unavailable: { status: 503, mcp: -32000 },
  // The request itself: not JSON, not the schema's shape (the conformance suite's invalid input).
  invalid_request: { status: 400, mcp: -32602 },
  not_found: { status: 404, mcp: -32000 },
  unauthorized: { status: 401, mcp: -32000 },
  forbidden: { status: 403, mcp: -32000 },
  method_not_allowed: { status: 405, mcp: -32601 },
  protocol_disabled: { status: 404, mcp: -32000 },
  rate_limited: { status: 429, mcp: -32000 },
  internal_error: { status: 500, mcp: -32603 },
} as const;

export type UcpCode = keyof typeof UCP_ERRORS;

export class UcpError extends Error {
  readonly status: number;
  readonly mcpCode: number;
  constructor(
    readonly code: UcpCode,
    readonly content: string,
    readonly extra: { continue_url?: string; retry_after?: number } = {},
  ) {
    super(content);
    this.status = UCP_ERRORS[code].status;
    this.mcpCode = UCP_ERRORS[code].mcp;
  }

  /** The REST body: `{code, content, continue_url?}`. */
  body(): Record<string, unknown> {
    return { code: this.code, content: this.content, ...(this.extra.continue_url ? { continue_url: this.extra.continue_url } : {}) };
  }
}

export const ucpFail = (code: UcpCode, content: string, extra?: UcpError['extra']) => new UcpError(code, content, extra);
