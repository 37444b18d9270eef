//! Managing merchant webhook endpoints and reading their deliveries: every argument checked
//! (the URL against the address policy), every read and write scoped to the viewer's account.

use std::sync::Arc;

use crate::domain::account::MAX_ROLL_OVERLAP_SECS;
use crate::domain::ids::{IdKind, NotAnId, WebhookDeliveryId, WebhookEndpointId, new_id};
use crate::domain::paging::PageSize;
use crate::domain::payment::event_type;
use crate::domain::status::PaymentStatus;
use crate::domain::time::Timestamp;
use crate::domain::webhook_endpoint::{WebhookAttempt, WebhookDelivery, WebhookEndpoint};
use crate::merchant_webhooks::address::AddressPolicy;
use crate::merchant_webhooks::signing::Secret;
use crate::persistence::keyset::{self, Page, PageRequest};
use crate::persistence::merchant_webhooks::{self as stored, DeliveryPageQuery, EndpointPageQuery};
use crate::persistence::{Db, feed};

use crate::service::stale::{StaleRetries, busy};
use crate::service::{ServiceError, check_free_text};

/// The most characters an endpoint's description may have.
pub const MAX_DESCRIPTION_LEN: usize = 500;
/// The most endpoints one account may have.
pub const MAX_ENDPOINTS_PER_ACCOUNT: usize = 20;

/// Endpoint management for the API.
#[derive(Clone, Debug)]
pub struct WebhookEndpoints {
    db: Db,
    policy: AddressPolicy,
}

/// What a new endpoint is to be.
#[derive(Clone, Debug)]
pub struct NewEndpoint {
    pub url: String,
    pub description: Option<String>,
    pub statuses: Vec<PaymentStatus>,
    pub event_types: Vec<String>,
}

/// Changes to an endpoint; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct EndpointChanges {
    pub url: Option<String>,
    pub description: Option<String>,
    pub statuses: Option<Vec<PaymentStatus>>,
    pub event_types: Option<Vec<String>>,
    pub enabled: Option<bool>,
}

impl WebhookEndpoints {
    pub fn new(db: Db, policy: AddressPolicy) -> Self {
        Self { db, policy }
    }

    /// Registers an endpoint; the answer carries its signing secret, which is never shown
    /// again.
    /// Registers an endpoint; returns it with its new secret (stored sealed when a secrets
    /// key is configured, so this is the only place it is seen in the clear).
    pub async fn create(
        &self,
        account_id: &str,
        new: NewEndpoint,
    ) -> Result<(WebhookEndpoint, String), ServiceError> {
        let url = self.checked_url("input.url", &new.url).await?;
        check_free_text(
            "input.description",
            new.description.as_deref(),
            MAX_DESCRIPTION_LEN,
        )?;
        let existing = keyset::fetch(
            &self.db,
            &EndpointPageQuery {
                account_id: account_id.to_string(),
                request: PageRequest {
                    size: PageSize::First(MAX_ENDPOINTS_PER_ACCOUNT as u64),
                    after: None,
                    before: None,
                },
            },
        )
        .await?;
        if existing.rows.len() >= MAX_ENDPOINTS_PER_ACCOUNT {
            return Err(ServiceError::bad_input(
                "input.url",
                format!(
                    "an account may have at most {MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; \
                     delete one first"
                ),
            ));
        }
        let event_types = event_types(new.event_types)?;
        // Read before the insert: whatever commits after the endpoint lies beyond it.
        let feed_from = feed::head(&self.db).await?;
        let now = Timestamp::now();
        let secret = Secret::generate().as_str().to_string();
        let endpoint = WebhookEndpoint {
            id: new_id(IdKind::WebhookEndpoint),
            account_id: account_id.to_string(),
            url,
            description: new.description,
            statuses: dedup(new.statuses),
            event_types,
            secret: self.db.sealer().seal(&secret),
            previous_secret: None,
            enabled: true,
            disabled_reason: None,
            last_success_at: None,
            feed_from,
            version: 0,
            created_at: now,
            updated_at: now,
        };
        stored::insert_endpoint(&self.db, &endpoint).await?;
        Ok((endpoint, secret))
    }

    pub async fn update(
        &self,
        account_id: &str,
        id: &str,
        changes: EndpointChanges,
    ) -> Result<WebhookEndpoint, ServiceError> {
        let url = match &changes.url {
            Some(url) => Some(self.checked_url("input.url", url).await?),
            None => None,
        };
        if let Some(description) = &changes.description {
            check_free_text("input.description", Some(description), MAX_DESCRIPTION_LEN)?;
        }
        let types = changes.event_types.clone().map(event_types).transpose()?;
        // Version-checked, so a change made meanwhile (the gateway disabling it after a failed
        // schedule, another edit) is never written over: read again and apply again.
        let mut retries = StaleRetries::default();
        loop {
            let mut endpoint = self.find(account_id, "input.id", id).await?;
            if let Some(url) = &url {
                endpoint.url = url.clone();
            }
            if let Some(description) = &changes.description {
                endpoint.description = Some(description.clone());
            }
            if let Some(statuses) = &changes.statuses {
                endpoint.statuses = dedup(statuses.clone());
            }
            if let Some(types) = &types {
                endpoint.event_types = types.clone();
            }
            match changes.enabled {
                Some(true) => {
                    endpoint.enabled = true;
                    endpoint.disabled_reason = None;
                }
                Some(false) => {
                    endpoint.enabled = false;
                    endpoint.disabled_reason = Some("disabled by the merchant".to_string());
                }
                None => {}
            }
            endpoint.updated_at = Timestamp::now();
            if stored::update_endpoint(&self.db, &endpoint).await? {
                endpoint.version += 1;
                return Ok(endpoint);
            }
            retries.again(busy)?;
        }
    }

    /// Gives the endpoint a new secret. The old one keeps signing every delivery beside it
    /// for `overlap_secs` (0 to 7 days; 0: not at all), so the merchant's receiver can move
    /// to the new one at its own pace; a secret rolled before is dropped. Returns the endpoint
    /// with the new secret in the clear (the only place it is seen so).
    pub async fn roll_secret(
        &self,
        account_id: &str,
        id: &str,
        overlap_secs: i64,
    ) -> Result<(WebhookEndpoint, String), ServiceError> {
        if !(0..=MAX_ROLL_OVERLAP_SECS).contains(&overlap_secs) {
            return Err(ServiceError::bad_input(
                "input.expireOldInSeconds",
                format!(
                    "expireOldInSeconds must be between 0 and {MAX_ROLL_OVERLAP_SECS} (7 days)"
                ),
            ));
        }
        let mut retries = StaleRetries::default();
        loop {
            let mut endpoint = self.find(account_id, "input.id", id).await?;
            let now = Timestamp::now();
            let secret = Secret::generate().as_str().to_string();
            let old = std::mem::replace(&mut endpoint.secret, self.db.sealer().seal(&secret));
            endpoint.previous_secret =
                (overlap_secs > 0).then(|| (old, now.plus_seconds(overlap_secs)));
            endpoint.updated_at = now;
            if stored::update_endpoint(&self.db, &endpoint).await? {
                endpoint.version += 1;
                return Ok((endpoint, secret));
            }
            retries.again(busy)?;
        }
    }

    pub async fn delete(&self, account_id: &str, id: &str) -> Result<(), ServiceError> {
        WebhookEndpointId::parse(id).map_err(|not| bad_id("id", not))?;
        if stored::delete_endpoint(&self.db, account_id, id).await? {
            Ok(())
        } else {
            Err(not_found("id"))
        }
    }

    pub async fn find(
        &self,
        account_id: &str,
        field: &str,
        id: &str,
    ) -> Result<WebhookEndpoint, ServiceError> {
        WebhookEndpointId::parse(id).map_err(|not| bad_id(field, not))?;
        stored::find_endpoint(&self.db, account_id, id)
            .await?
            .ok_or_else(|| not_found(field))
    }

    /// The endpoint `id` of `account_id`, or `None` (for `node(id)`).
    pub async fn lookup(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<Option<WebhookEndpoint>, ServiceError> {
        Ok(stored::find_endpoint(&self.db, account_id, id).await?)
    }

    /// A page of the account's endpoints (the query names the account).
    pub async fn page(
        &self,
        query: &EndpointPageQuery,
    ) -> Result<Page<Arc<WebhookEndpoint>>, ServiceError> {
        Ok(keyset::fetch(&self.db, query).await?)
    }

    /// A page of one endpoint's deliveries (the query names the account and the endpoint).
    pub async fn deliveries(
        &self,
        query: &DeliveryPageQuery,
    ) -> Result<Page<Arc<WebhookDelivery>>, ServiceError> {
        Ok(keyset::fetch(&self.db, query).await?)
    }

    /// The delivery `id` of `account_id`, or `None` (for `node(id)`).
    pub async fn delivery(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<Option<WebhookDelivery>, ServiceError> {
        Ok(stored::find_delivery(&self.db, account_id, id).await?)
    }

    pub async fn attempts(
        &self,
        delivery_ids: &[String],
    ) -> Result<Vec<WebhookAttempt>, ServiceError> {
        Ok(stored::attempts_of(&self.db, delivery_ids).await?)
    }

    /// Sends a delivery again, with the same event id and body, from now on a fresh schedule.
    pub async fn redeliver(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<WebhookDelivery, ServiceError> {
        WebhookDeliveryId::parse(id).map_err(|not| bad_id("deliveryId", not))?;
        let delivery = stored::find_delivery(&self.db, account_id, id)
            .await?
            .ok_or_else(|| not_found("deliveryId"))?;
        let endpoint = self
            .find(account_id, "deliveryId", &delivery.endpoint_id)
            .await?;
        if !endpoint.enabled {
            return Err(ServiceError::bad_input(
                "deliveryId",
                "this delivery's endpoint is disabled; enable it with updateWebhookEndpoint \
                 first",
            ));
        }
        stored::redeliver(&self.db, account_id, id, Timestamp::now())
            .await?
            .ok_or_else(|| not_found("deliveryId"))
    }

    async fn checked_url(&self, field: &str, url: &str) -> Result<String, ServiceError> {
        match self.policy.check_url(url).await {
            Ok(checked) => Ok(checked.to_string()),
            Err(problem) => Err(ServiceError::bad_input(field, problem.to_string())),
        }
    }
}

/// Event types as a client sends them: each one the gateway writes, each kept once.
fn event_types(types: Vec<String>) -> Result<Vec<String>, ServiceError> {
    let known = event_type::all();
    let mut kept: Vec<String> = Vec::with_capacity(types.len());
    for (index, wanted) in types.into_iter().enumerate() {
        if !known.contains(&wanted) {
            return Err(ServiceError::bad_input(
                &format!("input.eventTypes[{index}]"),
                format!("not an event type; they are {}", known.join(", ")),
            ));
        }
        if !kept.contains(&wanted) {
            kept.push(wanted);
        }
    }
    Ok(kept)
}

fn dedup(mut statuses: Vec<PaymentStatus>) -> Vec<PaymentStatus> {
    let mut seen = Vec::with_capacity(statuses.len());
    statuses.retain(|s| {
        let fresh = !seen.contains(s);
        seen.push(*s);
        fresh
    });
    statuses
}

/// `BAD_USER_INPUT` on `field`, saying which kind of id it must be.
fn bad_id(field: &str, not: NotAnId) -> ServiceError {
    ServiceError::bad_input(field, not.to_string())
}

fn not_found(field: &str) -> ServiceError {
    ServiceError::bad_input(field, "no such object in this account")
}
