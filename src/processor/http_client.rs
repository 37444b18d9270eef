//! The gateway's HTTP client for a processor that speaks the sandbox's JSON API. Transport
//! failures, timeouts, 429 and 5xx are retryable (with the processor's `Retry-After`); other
//! answers are final. Retries, backoff and the deadline are the caller's ([`super::Retrying`]).

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::RETRY_AFTER;

use super::wire::{CaptureBody, ChargeBody, ErrorReply, IDEMPOTENCY_KEY, RefundBody, Reply};
use super::{
    CaptureOutcome, CaptureRequest, ChargeOutcome, ChargeRequest, Processor, ProcessorError,
    RefundOutcome, RefundRequest,
};

pub struct HttpProcessor {
    client: reqwest::Client,
    base: String,
}

impl HttpProcessor {
    /// `base`: the processor's URL, e.g. `http://127.0.0.1:9000`.
    pub fn new(
        base: &str,
        connect_timeout: Duration,
        read_timeout: Duration,
    ) -> Result<Self, String> {
        crate::tls::install_default_provider();
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(crate::tls::client_config()?)
            .connect_timeout(connect_timeout)
            .read_timeout(read_timeout)
            .build()
            .map_err(|e| format!("cannot build the processor client: {e}"))?;
        Ok(Self {
            client,
            base: base.trim_end_matches('/').to_string(),
        })
    }

    async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<Option<Reply>, ProcessorError> {
        let response = request.send().await.map_err(transport)?;
        let status = response.status();
        if status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            return Err(ProcessorError::Retryable {
                reason: format!("processor answered {status}"),
                retry_after,
            });
        }
        if !status.is_success() {
            let why = response
                .json::<ErrorReply>()
                .await
                .map(|e| e.error)
                .unwrap_or_default();
            return Err(ProcessorError::Fatal(format!(
                "processor answered {status}: {why}"
            )));
        }
        // A body lost on the way is a transport failure: the retry asks again with the key.
        response.json::<Reply>().await.map(Some).map_err(transport)
    }
}

fn transport(err: reqwest::Error) -> ProcessorError {
    ProcessorError::retryable(format!("processor unreachable: {err}"))
}

fn unreadable() -> ProcessorError {
    ProcessorError::retryable("processor answered with an unknown status")
}

impl HttpProcessor {
    /// A charge or authorization (`path`) with the request's key.
    async fn open(
        &self,
        path: &str,
        request: &ChargeRequest,
    ) -> Result<ChargeOutcome, ProcessorError> {
        let body = ChargeBody {
            amount: request.amount,
            currency: request.currency.clone(),
            source: request.source.clone(),
            return_url: request.return_url.clone(),
        };
        let call = self
            .client
            .post(format!("{}/v1/{path}", self.base))
            .header(IDEMPOTENCY_KEY, &request.idempotency_key)
            .json(&body);
        let reply = self
            .send(call)
            .await?
            .ok_or_else(|| ProcessorError::Fatal(format!("{path} endpoint missing")))?;
        reply.into_charge().ok_or_else(unreadable)
    }

    /// A capture or void (`path`) of an authorization, with the request's key.
    async fn follow_up(
        &self,
        path: &str,
        request: &CaptureRequest,
    ) -> Result<CaptureOutcome, ProcessorError> {
        let body = CaptureBody {
            authorization_key: request.authorization_key.clone(),
            amount: request.amount,
            currency: request.currency.clone(),
        };
        let call = self
            .client
            .post(format!("{}/v1/{path}", self.base))
            .header(IDEMPOTENCY_KEY, &request.idempotency_key)
            .json(&body);
        let reply = self
            .send(call)
            .await?
            .ok_or_else(|| ProcessorError::Fatal(format!("{path} endpoint missing")))?;
        reply.into_capture().ok_or_else(unreadable)
    }
}

#[async_trait::async_trait]
impl Processor for HttpProcessor {
    async fn charge(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError> {
        self.open("charges", request).await
    }

    async fn authorize(&self, request: &ChargeRequest) -> Result<ChargeOutcome, ProcessorError> {
        self.open("authorizations", request).await
    }

    async fn capture(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError> {
        self.follow_up("captures", request).await
    }

    async fn void(&self, request: &CaptureRequest) -> Result<CaptureOutcome, ProcessorError> {
        self.follow_up("voids", request).await
    }

    async fn lookup_capture(&self, key: &str) -> Result<Option<CaptureOutcome>, ProcessorError> {
        let call = self.client.get(format!("{}/v1/captures/{key}", self.base));
        match self.send(call).await? {
            None => Ok(None),
            Some(reply) if reply.status == "attempting" => Ok(None),
            Some(reply) => reply.into_capture().map(Some).ok_or_else(unreadable),
        }
    }

    async fn lookup_charge(&self, key: &str) -> Result<Option<ChargeOutcome>, ProcessorError> {
        let call = self.client.get(format!("{}/v1/charges/{key}", self.base));
        match self.send(call).await? {
            None => Ok(None),
            Some(reply) if reply.status == "attempting" => Ok(None),
            Some(reply) => reply.into_charge().map(Some).ok_or_else(unreadable),
        }
    }

    async fn refund(&self, request: &RefundRequest) -> Result<RefundOutcome, ProcessorError> {
        let body = RefundBody {
            charge_key: request.charge_key.clone(),
            amount: request.amount,
            currency: request.currency.clone(),
        };
        let call = self
            .client
            .post(format!("{}/v1/refunds", self.base))
            .header(IDEMPOTENCY_KEY, &request.idempotency_key)
            .json(&body);
        let reply = self
            .send(call)
            .await?
            .ok_or_else(|| ProcessorError::Fatal("refund endpoint missing".into()))?;
        reply.into_refund().ok_or_else(unreadable)
    }
}
