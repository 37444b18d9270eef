// The shell: which gateway, which client token, and a Relay environment for the pair.

import { Suspense, useEffect, useMemo, useState } from 'react';
import { RelayEnvironmentProvider } from 'react-relay';
import Dashboard from './Dashboard';
import { ErrorBoundary } from './ErrorMessage';
import { createEnvironment } from './relay/environment';
import { gatewayUrl, tokenFromFragment } from './settings';

export default function App() {
  const gateway = useMemo(gatewayUrl, []);
  const [token, setToken] = useState(tokenFromFragment);

  return (
    <main>
      <header>
        <h1>graphpay dashboard</h1>
        <p className="muted">
          Gateway <code>{gateway}</code>
        </p>
        <TokenForm token={token} onSubmit={setToken} />
      </header>
      {token ? (
        <Session key={token} gateway={gateway} token={token} />
      ) : (
        <p>Paste a client token (<code>gpct_...</code>) minted with <code>createClientToken</code>.</p>
      )}
    </main>
  );
}

function TokenForm({ token, onSubmit }) {
  const [draft, setDraft] = useState(token);
  return (
    <form
      className="token"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(draft.trim());
      }}
    >
      <label>
        Client token{' '}
        <input
          name="token"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="gpct_..."
          autoComplete="off"
          spellCheck="false"
        />
      </label>
      <button type="submit">Use token</button>
    </form>
  );
}

/** One environment per token: a new token starts from an empty store and a new WebSocket. */
function Session({ gateway, token }) {
  const [session, setSession] = useState(null);
  useEffect(() => {
    const created = createEnvironment(gateway, token);
    setSession(created);
    return created.dispose;
  }, [gateway, token]);

  if (!session) return null;
  return (
    <RelayEnvironmentProvider environment={session.environment}>
      <ErrorBoundary>
        <Suspense fallback={<p>Loading payments…</p>}>
          <Dashboard liveStatus={session.liveStatus} />
        </Suspense>
      </ErrorBoundary>
    </RelayEnvironmentProvider>
  );
}
