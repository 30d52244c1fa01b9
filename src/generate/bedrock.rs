//! Amazon Bedrock's Converse API, awaited on the Lambda's own runtime.

use std::time::Duration;

use aws_sdk_bedrockruntime::config::retry::RetryConfig;
use aws_sdk_bedrockruntime::config::timeout::TimeoutConfig;
use aws_sdk_bedrockruntime::error::{DisplayErrorContext, SdkError};
use aws_sdk_bedrockruntime::operation::converse::ConverseError;
use aws_sdk_bedrockruntime::types::{
    ContentBlock, ConversationRole, ConverseOutput, InferenceConfiguration, Message, StopReason,
    SystemContentBlock,
};

use super::model::{Generator, Prompt, Writing, Written};
use super::prompt::{system_prompt, user_prompt};
use crate::config::BedrockConfig;
use crate::protocol::response::Fallback;

/// Amazon Bedrock, through the Converse API of `aws-sdk-bedrockruntime`.
pub struct Bedrock {
    config: BedrockConfig,
    client: aws_sdk_bedrockruntime::Client,
}

impl Bedrock {
    /// A client from the environment (the function's role and region, or
    /// `region`).
    pub async fn from_environment(config: BedrockConfig) -> Result<Bedrock, String> {
        let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
        if let Some(r) = config.region.clone() {
            loader = loader.region(aws_config::Region::new(r));
        }
        let sdk = tokio::time::timeout(Duration::from_secs(10), loader.load())
            .await
            .map_err(|_| "loading the AWS configuration for Bedrock took over 10 s")?;
        if sdk.region().is_none() {
            return Err("ask.bedrock_region is not set and AWS_REGION is empty".into());
        }
        Ok(Self::new(
            config,
            aws_sdk_bedrockruntime::config::Builder::from(&sdk),
        ))
    }

    /// A client from `sdk` (tests give it a replay HTTP client), with this
    /// generator's retries and timeout.
    pub fn new(config: BedrockConfig, sdk: aws_sdk_bedrockruntime::config::Builder) -> Bedrock {
        // Two attempts, 100 ms apart at first: a throttled answer falls back
        // soon rather than waiting out the SDK's default backoff of up to 20 s.
        let sdk = sdk
            .retry_config(
                RetryConfig::standard()
                    .with_max_attempts(2)
                    .with_initial_backoff(Duration::from_millis(100))
                    .with_max_backoff(Duration::from_secs(1)),
            )
            .timeout_config(
                TimeoutConfig::builder()
                    .operation_timeout(config.timeout)
                    .build(),
            )
            .build();
        Bedrock {
            config,
            client: aws_sdk_bedrockruntime::Client::from_conf(sdk),
        }
    }
}

impl Generator for Bedrock {
    fn name(&self) -> &str {
        "bedrock"
    }

    fn model(&self) -> &str {
        &self.config.model_id
    }

    fn write<'a>(&'a self, prompt: &'a Prompt<'_>) -> Writing<'a> {
        let user = user_prompt(prompt);
        let system = system_prompt(prompt.product);
        Box::pin(async move {
            use futures_util::FutureExt;
            // A panic in the SDK's call is a fallback like its errors.
            match std::panic::AssertUnwindSafe(self.converse(user, system))
                .catch_unwind()
                .await
            {
                Ok(written) => written,
                Err(_) => {
                    tracing::error!(model = %self.config.model_id, "bedrock: the call panicked");
                    Err(Fallback::Error)
                }
            }
        })
    }
}

impl Bedrock {
    async fn converse(&self, user: String, system: String) -> Result<Written, Fallback> {
        let message = Message::builder()
            .role(ConversationRole::User)
            .content(ContentBlock::Text(user))
            .build()
            .map_err(|e| {
                tracing::warn!(error = %e, "bedrock: message");
                Fallback::Error
            })?;
        let call = self
            .client
            .converse()
            .model_id(&self.config.model_id)
            .system(SystemContentBlock::Text(system))
            .messages(message)
            .inference_config(
                InferenceConfiguration::builder()
                    .max_tokens(self.config.max_tokens.min(i32::MAX as u32) as i32)
                    .temperature(0.0)
                    .build(),
            )
            .send();
        // The SDK's operation timeout ends the call first; this deadline
        // only guards against a connection that stopped answering.
        let wait = self.config.timeout + Duration::from_secs(1);
        let out = match tokio::time::timeout(wait, call).await {
            Err(_) => {
                tracing::warn!(model = %self.config.model_id, "bedrock: no answer by the deadline");
                return Err(Fallback::Timeout);
            }
            Ok(Err(e)) => {
                let reason = classify(&e);
                tracing::warn!(model = %self.config.model_id, reason = ?reason, error = %DisplayErrorContext(&e), "bedrock: falling back");
                return Err(reason);
            }
            Ok(Ok(out)) => out,
        };
        if matches!(
            out.stop_reason(),
            StopReason::ContentFiltered | StopReason::GuardrailIntervened
        ) {
            tracing::warn!(model = %self.config.model_id, stop_reason = out.stop_reason().as_str(), "bedrock: refused");
            return Err(Fallback::Refused);
        }
        let text = match out.output() {
            Some(ConverseOutput::Message(m)) => m
                .content()
                .iter()
                .filter_map(|b| b.as_text().ok())
                .cloned()
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        };
        if text.trim().is_empty() {
            return Err(Fallback::Refused);
        }
        let usage = out.usage();
        Ok(Written {
            text,
            input_tokens: usage.map(|u| u.input_tokens()),
            output_tokens: usage.map(|u| u.output_tokens()),
            truncated: *out.stop_reason() == StopReason::MaxTokens,
        })
    }
}

/// Why a Converse call failed, as a fallback reason.
fn classify<R>(e: &SdkError<ConverseError, R>) -> Fallback {
    match e {
        SdkError::TimeoutError(_) => Fallback::Timeout,
        SdkError::ServiceError(s) => match s.err() {
            ConverseError::ThrottlingException(_) => Fallback::Throttled,
            ConverseError::ModelTimeoutException(_) => Fallback::Timeout,
            _ => Fallback::Error,
        },
        _ => Fallback::Error,
    }
}
