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

/** What a model stream yields: text chunks as they arrive, then each complete tool call. */
export type ModelEvent = { type: 'text'; text: string } | { type: 'tool_call'; call: ToolCall };

export interface ModelRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ToolDef[];
  signal: AbortSignal;
}

/** One interface over every provider; a failure (HTTP error, broken stream) is thrown as ProviderError. */
export interface ModelProvider {
  stream(req: ModelRequest): AsyncIterable<ModelEvent>;
}

export class ProviderError extends Error {}
