/**
 * Reads a server-sent event body to its end, calling onEvent with each `data:` line's JSON. Shared
 * by the console (the executions stream, agent chat) and the webchat widget, which bundles it alone.
 */
export async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (e: any) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      for (const line of frame.split('\n')) if (line.startsWith('data: ')) onEvent(JSON.parse(line.slice(6)));
    }
  }
}
