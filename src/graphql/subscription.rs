//! The `Subscription` root: live payment updates over `graphql-transport-ws`.

use async_graphql::{Context, ID, Result, Subscription as SubscriptionRoot};
use futures_util::Stream;
use tokio::sync::broadcast::error::RecvError;

use super::Viewer;
use super::objects::Payment;
use crate::domain::ids::{IdKind, is_id_of};
use crate::error::ApiError;
use crate::service::payments::PaymentService;

pub struct Subscription;

#[SubscriptionRoot]
impl Subscription {
    /// The viewer's payments, each time one changes; only the one with `id` when given.
    async fn payment_updated(
        &self,
        ctx: &Context<'_>,
        id: Option<ID>,
    ) -> Result<impl Stream<Item = Payment> + use<>> {
        let viewer = ctx.data::<Viewer>()?.account_id.clone();
        if id.as_ref().is_some_and(|id| !is_id_of(IdKind::Payment, id)) {
            return Err(
                ApiError::bad_input("id", "not a payment id (they start with pay_)").into(),
            );
        }
        let only = id.map(|id| id.to_string());
        let receiver = ctx.data::<PaymentService>()?.feed().subscribe();
        Ok(futures_util::stream::unfold(
            receiver,
            move |mut receiver| {
                let (viewer, only) = (viewer.clone(), only.clone());
                async move {
                    loop {
                        match receiver.recv().await {
                            Ok(payment)
                                if payment.account_id == viewer
                                    && only.as_ref().is_none_or(|id| *id == payment.id) =>
                            {
                                return Some((Payment::from(payment), receiver));
                            }
                            Ok(_) => {}
                            Err(RecvError::Lagged(missed)) => {
                                tracing::warn!(missed, "a subscriber fell behind the payment feed");
                            }
                            Err(RecvError::Closed) => return None,
                        }
                    }
                }
            },
        ))
    }
}
