/** Tool arguments arrive as JSON text; anything but an object is handed on as an empty input. */
export function parseArgs(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
