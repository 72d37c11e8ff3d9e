/** Where svc's MCP server answers (Streamable HTTP). Its own module so the HTTP app names the route without loading the MCP SDK at start. */
export const MCP_PATH = '/agent/mcp';
