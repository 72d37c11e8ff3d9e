/**
 * The MCP parts of a plugin's contract (core/plugins/contract.ts re-exports them): talking to the
 * client during a call, resources and prompts a plugin serves, and MCP Apps.
 */

/**
 * Talking to the MCP client during a tools/call (plugins/README.md, "Talking to the MCP client").
 * `log` and `progress` are notifications: they do nothing when the client did not ask for them (a
 * log level below the session's, a call without `_meta.progressToken`). `sample` and `elicit` are
 * requests the client answers; they throw a `client_capability_missing` tool error when the client
 * did not declare `sampling` or form `elicitation` at initialize.
 */
export interface McpClient {
  log(level: 'debug' | 'info' | 'notice' | 'warning' | 'error', data: unknown): Promise<void>;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** sampling/createMessage: the client's model answers `messages` (MCP CreateMessageRequest params). */
  sample(params: {
    messages: { role: 'user' | 'assistant'; content: { type: 'text'; text: string } }[];
    maxTokens: number;
    systemPrompt?: string;
  }): Promise<{ role: string; content: unknown; model: string; stopReason?: string }>;
  /** elicitation/create in form mode: the human behind the client fills `requestedSchema` (flat, primitive fields). */
  elicit(params: {
    message: string;
    requestedSchema: { type: 'object'; properties: Record<string, object>; required?: string[] };
  }): Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;
}

/** A resource served by URI: `uri` fixed (`test://static-text`) or a template with `{name}` parts. */
export interface McpResourceDef {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  /** Its contents, text or base64 `blob`; `params` holds a template's parts, decoded. */
  read(params: Record<string, string>): Promise<{ text: string } | { blob: string }>;
}

/** What a prompt message carries (MCP PromptMessage content). */
export type McpPromptContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string } };

export interface McpPromptDef {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  /** The messages, from the arguments given (a missing required one is refused before). */
  get(args: Record<string, string>): Promise<{ role: 'user' | 'assistant'; content: McpPromptContent }[]>;
  /** completion/complete: suggestions for an argument from what the user typed so far. */
  complete?(argument: string, value: string): string[];
}

/** A plugin's MCP Apps (core/mcp/apps.ts serves them to clients that declare the extension). */
export interface McpApps {
  /** `ui://` resources: one self-contained HTML document each (text/html;profile=mcp-app). */
  views: { uri: string; name: string; description: string; html: string }[];
  /** Tools whose results a view renders: a category `tool` (grouped) and, in flat mode, `<tool>_<action>` for these actions. */
  links: { tool: string; actions: string[]; view: string }[];
  /**
   * Tools only these clients get: `name` as a category with an `action` argument (grouped) or
   * `<name>_<action>` (flat), each action running one of this plugin's actions through invoke.
   */
  tools?: { name: string; description: string; view?: string; actions: Record<string, string> }[];
}
