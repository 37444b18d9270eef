// The Relay environment for one gateway and one client token. Every operation is sent by its
// document id only (the gateway runs only documents registered from persisted-documents.json):
// queries and mutations over HTTP, the subscription over `graphql-transport-ws`. When the
// WebSocket drops, graphql-ws connects again and subscribes again; a subscription that takes
// an `$after` cursor then asks for what came after the last edge it delivered (see
// `wsSubscribe`), so nothing that happened in between is missed or heard twice.

import { Environment, Network, Observable, RecordSource, Store } from 'relay-runtime';
import { createClient } from 'graphql-ws';

/** GraphQL errors from the gateway, each with its `message` and `extensions.code`. */
export class GatewayError extends Error {
  constructor(errors) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'GatewayError';
    this.errors = errors;
  }
}

function documentIdOf(params) {
  if (!params.id) {
    throw new Error(`${params.name} has no document id: run \`npm run relay\``);
  }
  return params.id;
}

function httpFetch(gateway, token) {
  return async (params, variables) => {
    const response = await fetch(`${gateway}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ documentId: documentIdOf(params), variables }),
    });
    const body = await response.json().catch(() => null);
    if (!body) {
      throw new GatewayError([{ message: `HTTP ${response.status} from the gateway` }]);
    }
    if (body.errors?.length && body.data == null) {
      throw new GatewayError(body.errors);
    }
    return body;
  };
}

/** The state of the live connection, for the page to show: 'connecting', 'connected' or 'closed'. */
function liveStatusStore() {
  let status = 'connecting';
  const listeners = new Set();
  return {
    get: () => status,
    set(next) {
      status = next;
      listeners.forEach((listener) => listener());
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * The cursor a resumable subscription's answer carries: a subscription that declares `$after`
 * and whose root field is an edge (`{ cursor, node }`) resumes from its last one.
 */
function resumeCursor(variables, data) {
  if (!data || !Object.hasOwn(variables, 'after')) return null;
  const edge = Object.values(data)[0];
  return typeof edge?.cursor === 'string' ? edge.cursor : null;
}

function wsSubscribe(client) {
  return (params, variables) =>
    Observable.create((sink) => {
      let after = null;
      const payload = {
        // `query` is a placeholder that graphql-ws requires; `omitEmptyQuery` keeps it off the wire.
        query: '',
        documentId: documentIdOf(params),
        // Read each time graphql-ws sends the subscribe message: first with the variables as
        // given, and after a reconnect with `after` set to the cursor of the last edge heard.
        get variables() {
          return after === null ? variables : { ...variables, after };
        },
      };
      return client.subscribe(payload, {
        next: (value) => {
          if (value.errors?.length && value.data == null) {
            sink.error(new GatewayError(value.errors));
            return;
          }
          after = resumeCursor(variables, value.data) ?? after;
          sink.next(value);
        },
        error: (error) => sink.error(
          Array.isArray(error) ? new GatewayError(error) : new Error(closeReason(error)),
        ),
        complete: () => sink.complete(),
      });
    });
}

function closeReason(error) {
  if (error && typeof error.code === 'number') {
    return `live updates closed (${error.code}${error.reason ? `: ${error.reason}` : ''})`;
  }
  return String(error?.message ?? error);
}

// graphql-ws checks that a subscribe payload has a `query` string before sending it; a payload
// that names its document by id has none to send, so the empty placeholder is dropped here.
function omitEmptyQuery(key, value) {
  return key === 'query' && value === '' && this.documentId ? undefined : value;
}

/**
 * The store's key of a record: its `id`, except that a payment's status change (`PaymentEvent`)
 * shares its id with the log's `Event` for the same change, so it is keyed by type as well.
 */
function getDataID(fieldValue, typeName) {
  return typeName === 'PaymentEvent' ? `${typeName}:${fieldValue.id}` : fieldValue.id;
}

/** A Relay environment talking to `gateway` as `token`; call `dispose()` when done with it. */
export function createEnvironment(gateway, token) {
  const liveStatus = liveStatusStore();
  const client = createClient({
    url: `${gateway.replace(/^http/, 'ws')}/graphql/ws`,
    connectionParams: { Authorization: `Bearer ${token}` },
    jsonMessageReplacer: omitEmptyQuery,
    on: {
      connecting: () => liveStatus.set('connecting'),
      connected: () => liveStatus.set('connected'),
      closed: () => liveStatus.set('closed'),
    },
  });
  const environment = new Environment({
    network: Network.create(httpFetch(gateway, token), wsSubscribe(client)),
    store: new Store(new RecordSource()),
    getDataID,
  });
  return { environment, liveStatus, dispose: () => client.dispose() };
}
