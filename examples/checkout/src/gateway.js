// Talks to the gateway as a browser may: trusted documents only, sent by id, with the client
// token the merchant's server minted for this render (never a secret key).
import manifest from '../persisted-documents.json';

const idByText = new Map(Object.entries(manifest).map(([id, text]) => [text, id]));

/** A GraphQL error (or a failure to reach the gateway), with the code to show. */
export class GatewayError extends Error {
  constructor(code, message, extensions = {}) {
    super(message);
    this.code = code;
    this.extensions = extensions;
  }
}

/**
 * Runs the trusted document `text` with `variables` and returns the answer's `data`. The
 * first GraphQL error, or a transport failure, is thrown as a GatewayError.
 */
export async function run(config, text, variables) {
  const documentId = idByText.get(text);
  if (!documentId) {
    throw new GatewayError('NOT_REGISTERED', 'This page sends a document missing from persisted-documents.json (run `npm run manifest`).');
  }
  let response;
  try {
    response = await fetch(`${config.gateway}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        authorization: `Bearer ${config.clientToken}`,
      },
      body: JSON.stringify({ documentId, variables }),
    });
  } catch {
    throw new GatewayError('NETWORK_ERROR', 'The payment service could not be reached. Check your connection and try again.');
  }
  let body;
  try {
    body = await response.json();
  } catch {
    throw new GatewayError(`HTTP_${response.status}`, 'The payment service sent an answer this page cannot read.');
  }
  const error = body.errors?.[0];
  if (error) {
    const extensions = error.extensions ?? {};
    throw new GatewayError(extensions.code ?? 'INTERNAL', error.message ?? 'Something went wrong.', extensions);
  }
  if (!body.data) throw new GatewayError('INTERNAL', 'The payment service sent no data.');
  return body.data;
}
