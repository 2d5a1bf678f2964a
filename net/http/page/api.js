// Calls to netherscope's JSON API from the page: one function that sends a request and
// reads back the body, the error and the quota headers, whatever happened on the way.

/// What a call came back with. `body` is the parsed JSON or null; `quota` is null when the
/// response carried no X-RateLimit-* headers; `request_id` is the service's X-Request-Id (what
/// its access log calls the call); `network_error` is set when no response came.
/// @typedef {{status: number, body: any, quota: ?{scope: string, limit: number,
///   remaining: number, reset: number}, retry_after: ?number, request_id: ?string,
///   network_error: ?string}} api_reply

/// The X-RateLimit-* headers of a response, or null when it has none.
function read_quota(headers) {
  const limit = headers.get('X-RateLimit-Limit');
  const remaining = headers.get('X-RateLimit-Remaining');
  if (limit === null || remaining === null)
    return null;
  return {
    scope: headers.get('X-RateLimit-Scope') || 'ip',
    limit: Number(limit),
    remaining: Number(remaining),
    reset: Number(headers.get('X-RateLimit-Reset') || 0),
  };
}

/// Sends one request to the API and resolves to an api_reply; never rejects, so every caller
/// handles a lost connection the same way as an error response.
export async function call_api(method, path, { headers = {}, json } = {}) {
  const init = { method, headers: { ...headers }, credentials: 'same-origin', cache: 'no-store' };
  if (json !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(json);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    return { status: 0, body: null, quota: null, retry_after: null, request_id: null,
             network_error: String(error && error.message || error) };
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    // A body that is not JSON (a proxy's error page) leaves body null; the status still says
    // what happened.
  }
  const retry = response.headers.get('Retry-After');
  return { status: response.status, body, quota: read_quota(response.headers),
           retry_after: retry === null ? null : Number(retry),
           request_id: response.headers.get('X-Request-Id'), network_error: null };
}
