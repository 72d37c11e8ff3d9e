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

/** One answer of a chat model, asked for whole (the llm tool): text, or the object a JSON Schema asked for. */
export interface CompleteRequest {
  model: string;
  system?: string;
  prompt: string;
  maxTokens?: number;
  /** Structured output: the answer is an object of this JSON Schema (response_format or a forced tool). */
  schema?: Record<string, unknown>;
  signal?: AbortSignal;
}
export interface Completion {
  text: string;
  /** With a schema: the parsed object (not yet checked against it), or undefined when the answer was not JSON. */
  json?: unknown;
  usage: Usage;
  /** The token limit cut the answer off. */
  truncated: boolean;
}

/**
 * A chat model (the `llm` kind): streamed turns with tools for agents, one whole answer for the
 * llm tool. A failure is thrown as an SvcError (provider_error, rate_limit_exceeded); a caller's
 * abort passes through as it is.
 */
export interface ChatProvider {
  /** `openai` or `anthropic`: the wire format, recorded with each call's usage. */
  name: string;
  stream(req: ModelRequest): AsyncIterable<ModelEvent>;
  complete(req: CompleteRequest): Promise<Completion>;
}
/** The agents' name for it. */
export type ModelProvider = ChatProvider;

/** Text embeddings (the `embeddings` kind): one vector per input, in order. */
export interface EmbeddingsProvider {
  name: string;
  embed(model: string, texts: string[], signal?: AbortSignal): Promise<{ vectors: number[][]; usage: Usage }>;
}

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}
/** Web search (the `web_search` kind): results in the provider's order. */
export interface SearchProvider {
  name: string;
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchResult[]>;
}
