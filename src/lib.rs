//! graphpay: a GraphQL payments gateway.

pub mod cli;
pub mod config;
pub mod delivery;
pub mod domain;
pub mod error;
pub mod graphql;
pub mod http;
pub mod metrics;
pub mod persistence;
pub mod processor;
pub mod sandbox;
pub mod service;
pub mod startup;
pub mod telemetry;
pub mod tls;
