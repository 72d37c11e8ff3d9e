/** The provider-neutral conversation the agent loop keeps; each adapter maps it to its wire format. */
export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface ToolResult {
  id: string;
  name: string;
  /** What the model reads: the JSON result, or the error as JSON. */
  content: string;
  isError: boolean;
}
export type ChatMessage =
  { role: 'user'; text: string } | { role: 'assistant'; text: string; toolCalls: ToolCall[] } | { role: 'tool'; results: ToolResult[] };

export interface ToolDef {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object). */
  parameters: Record<string, unknown>;
}

/** Tokens one model call took, as the provider reported them (0 when it reported none). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/**
 * Why the model stopped: it finished (`end`), it wants its tool calls run (`tool_use`), or it hit
 * the token limit (`max_tokens`), which leaves the last text or tool call cut off.
 */
export type StopReason = 'end' | 'tool_use' | 'max_tokens';

/**
 * What a model stream yields: text chunks as they arrive, each tool call, then one `finish` last.
 * A stream that ends without `finish` failed (and throws).
 */
export type ModelEvent = { type: 'text'; text: string } | { type: 'tool_call'; call: ToolCall } | { type: 'finish'; stop: StopReason; usage: Usage };

export interface ModelRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ToolDef[];
  signal: AbortSignal;
}

/** One interface over every provider; a failure (HTTP error, broken stream) is thrown as ProviderError. */
export interface ModelProvider {
  /** `openai` or `anthropic`: the wire format, recorded with each call's usage. */
  name: string;
  stream(req: ModelRequest): AsyncIterable<ModelEvent>;
}

export class ProviderError extends Error {}
