// GraphQL errors shown as the gateway sent them: the code (`extensions.code`) and the message.

import { Component } from 'react';

export function ErrorMessage({ error }) {
  if (!error) return null;
  const errors = error.errors ?? [{ message: error.message }];
  return (
    <div className="error" role="alert">
      {errors.map((e, i) => (
        <p key={i}>
          {e.extensions?.code && <strong className="code">{e.extensions.code}</strong>} {e.message}
        </p>
      ))}
    </div>
  );
}

export class ErrorBoundary extends Component {
  state = { error: null };

  static getDerivedStateFromError(error) {
    return { error };
  }

  render() {
    return this.state.error ? <ErrorMessage error={this.state.error} /> : this.props.children;
  }
}
