//! A payment answered on its own (`payment(id)`, `node`, `nodes`, and each payment of a page
//! whose selection [`super::listed`] does not write whole, such as one showing `events`): the
//! fields of its selection that its row answers are written straight into the answer, and
//! `events` and `refunds` are resolved by their loaders beside them (a page's payments by the
//! page's, one statement for the page).

use std::borrow::Cow;

use async_graphql::parser::types::Field;
use async_graphql::registry::Registry;
use async_graphql::{ContextSelectionSet, Name, OutputType, Pos, Positioned, ServerResult, Value};

use super::listed::{FieldByField, document, object};
use super::shown::Shown;

/// A payment answered on its own (`payment(id)`): the fields selected that its row answers
/// are written straight into the answer, as a page's nodes are, and `events` and `refunds`
/// are resolved by their loaders beside them (see [`one_payment`]).
pub struct Direct(pub super::objects::Payment);

impl OutputType for Direct {
    fn type_name() -> Cow<'static, str> {
        super::objects::Payment::type_name()
    }

    fn qualified_type_name() -> String {
        super::objects::Payment::qualified_type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        super::objects::Payment::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        match one_payment(ctx, field.pos, &self.0).await {
            Some(value) => Ok(value),
            None => OutputType::resolve(&self.0, ctx, field).await,
        }
    }
}

/// What a payment's selection shows of one payment, kept with the document
/// ([`super::kept`]): fields answered from the row, and the place of each of the others
/// (`events`, `refunds`), resolved as the payment's own resolvers resolve them.
enum Part {
    Row(Shown),
    Resolved(Pos),
}

/// A payment's plan: each response key and its part, in the selection's order; `None` when
/// the selection is to be resolved the usual way (a directive, or a field given twice under
/// one key that is not answered from the row).
type Plan = Option<Vec<(Name, Part)>>;

fn plan(ctx: &ContextSelectionSet<'_>) -> Plan {
    let doc = document(ctx);
    doc.collect([&ctx.item.node], "Payment")?
        .into_iter()
        .map(|collected| {
            if !collected.is_plain() {
                return None;
            }
            let part = match Shown::planned(doc, &collected) {
                Some(shown) => Part::Row(shown),
                None if collected.fields.len() == 1 => Part::Resolved(collected.fields[0].pos),
                None => return None,
            };
            Some((collected.key.clone(), part))
        })
        .collect()
}

/// One payment's answer, `ctx` being its selection (that of the field at `at`): the fields
/// answered from the row written straight in, the others resolved by the payment's resolvers
/// (a failed one leaves its key out and its error in the response, as the usual path does),
/// in the selection's order. `None` when the selection is to be resolved the usual way (see
/// [`Plan`], or field-by-field resolution).
async fn one_payment(
    ctx: &ContextSelectionSet<'_>,
    at: Pos,
    payment: &super::objects::Payment,
) -> Option<Value> {
    use async_graphql::ContainerType;
    if ctx.data_opt::<FieldByField>().is_some() {
        return None;
    }
    let kept = super::kept::planned::<Direct, _, _>(
        ctx,
        at,
        || plan(ctx),
        |plan| plan.as_ref().map_or(1, Vec::len),
    );
    let plan = Option::as_ref(&kept)?;
    // The fields the resolvers answer, found in this request's document by their place.
    let doc = document(ctx);
    let resolving = plan
        .iter()
        .filter_map(|(_, part)| match part {
            Part::Resolved(at) => Some(doc.field_at(&ctx.item.node, *at)),
            Part::Row(_) => None,
        })
        .collect::<Option<Vec<_>>>()?;
    // The resolved fields together, so that their loaders gather their loads into one batch.
    let resolved = futures_util::future::join_all(
        resolving
            .into_iter()
            .map(|field| async move { payment.resolve_field(&ctx.with_field(field)).await }),
    )
    .await;
    let mut resolved = resolved.into_iter();
    let mut fields = async_graphql::indexmap::IndexMap::with_capacity(plan.len());
    for (key, part) in plan {
        match part {
            Part::Row(shown) => {
                fields.insert(key.clone(), shown.value(&payment.payment));
            }
            Part::Resolved(_) => match resolved.next()? {
                Ok(value) => {
                    fields.insert(key.clone(), value.unwrap_or_default());
                }
                Err(err) => ctx.add_error(err),
            },
        }
    }
    Some(object(fields.into_iter()))
}

/// An object found by id (`node`, `nodes`): a payment is answered as [`Direct`] answers one,
/// through fragments on `Payment` or `Node`; any other object is resolved the usual way.
pub struct DirectNode(pub super::node::Node);

impl OutputType for DirectNode {
    fn type_name() -> Cow<'static, str> {
        super::node::Node::type_name()
    }

    fn qualified_type_name() -> String {
        super::node::Node::qualified_type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        super::node::Node::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        if let super::node::Node::Payment(payment) = &self.0
            && let Some(value) = one_payment(ctx, field.pos, payment).await
        {
            return Ok(value);
        }
        OutputType::resolve(&self.0, ctx, field).await
    }
}
