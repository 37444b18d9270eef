//! What is told of every statement a handle runs, whichever way it runs: through the ORM or
//! read from the driver's row stream (see [`super::streamed`]).

use std::fmt;
use std::sync::Arc;

/// Called once for every statement, with whether it failed.
#[derive(Clone, Default)]
pub(super) struct Observer(Option<Arc<dyn Fn(bool) + Send + Sync>>);

impl Observer {
    pub(super) fn new(hook: impl Fn(bool) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(hook)))
    }

    /// Tells of one statement run.
    pub(super) fn ran(&self, failed: bool) {
        if let Some(hook) = &self.0 {
            hook(failed);
        }
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Observer(set)"
        } else {
            "Observer(none)"
        })
    }
}
