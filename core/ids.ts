/** `req_` and 24 hex digits: the id of one request, in every response and log line it causes. */
export const newRequestId = () => `req_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
