//! How a Claude Code line is read: borrowed heads of the line, of its `message` and of its
//! content blocks, with the fields the model keeps and nothing else. A wrongly typed field reads
//! as absent rather than failing the line; `message` and `content` take every shape they have
//! had (object, plain string, string with escapes, array of blocks).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::json::{LBool, LNum, LStr, Shape, lenient};
use crate::model::Usage;

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct LineHead<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) ty: LStr<'a>,
    #[serde(borrow)]
    pub(super) subtype: LStr<'a>,
    #[serde(borrow)]
    pub(super) uuid: LStr<'a>,
    #[serde(rename = "parentUuid", borrow)]
    pub(super) parent_uuid: LStr<'a>,
    #[serde(rename = "parent_uuid", borrow)]
    pub(super) parent_uuid_snake: LStr<'a>,
    #[serde(rename = "logicalParentUuid", borrow)]
    pub(super) logical_parent_uuid: LStr<'a>,
    #[serde(rename = "sessionId", borrow)]
    pub(super) session_id: LStr<'a>,
    #[serde(rename = "session_id", borrow)]
    pub(super) session_id_snake: LStr<'a>,
    #[serde(borrow)]
    pub(super) timestamp: LStr<'a>,
    #[serde(rename = "isSidechain")]
    pub(super) is_sidechain: LBool,
    #[serde(rename = "is_sidechain")]
    pub(super) is_sidechain_snake: LBool,
    #[serde(rename = "isMeta")]
    pub(super) is_meta: LBool,
    #[serde(rename = "isCompactSummary")]
    pub(super) is_compact_summary: LBool,
    #[serde(rename = "isVisibleInTranscriptOnly")]
    pub(super) transcript_only: LBool,
    #[serde(rename = "isDeleted")]
    pub(super) is_deleted: LBool,
    #[serde(rename = "isApiErrorMessage")]
    pub(super) api_error: LBool,
    #[serde(rename = "userType", borrow)]
    pub(super) user_type: LStr<'a>,
    #[serde(borrow)]
    pub(super) cwd: LStr<'a>,
    #[serde(borrow)]
    pub(super) version: LStr<'a>,
    #[serde(rename = "gitBranch", borrow)]
    pub(super) git_branch: LStr<'a>,
    #[serde(borrow)]
    pub(super) slug: LStr<'a>,
    #[serde(borrow)]
    pub(super) entrypoint: LStr<'a>,
    #[serde(rename = "permissionMode", borrow)]
    pub(super) permission_mode: LStr<'a>,
    #[serde(rename = "agentId", borrow)]
    pub(super) agent_id: LStr<'a>,
    #[serde(rename = "requestId", borrow)]
    pub(super) request_id: LStr<'a>,
    #[serde(rename = "toolUseID", borrow)]
    pub(super) tool_use_id: LStr<'a>,
    #[serde(rename = "sourceToolUseID", borrow)]
    pub(super) source_tool_use_id: LStr<'a>,
    #[serde(rename = "parentToolUseID", borrow)]
    pub(super) parent_tool_use_id: LStr<'a>,
    /// Agent SDK messages: the Task call a subagent's message belongs to.
    #[serde(rename = "parent_tool_use_id", borrow)]
    pub(super) parent_tool_use_id_snake: LStr<'a>,
    #[serde(rename = "sourceToolAssistantUUID", borrow)]
    pub(super) source_tool_assistant: LStr<'a>,
    #[serde(rename = "nestingLevel")]
    pub(super) nesting_level: LNum,
    #[serde(rename = "costUSD")]
    pub(super) cost_usd_upper: LNum,
    #[serde(rename = "costUsd")]
    pub(super) cost_usd_camel: LNum,
    #[serde(rename = "cost_usd")]
    pub(super) cost_usd_snake: LNum,
    #[serde(borrow)]
    pub(super) model: LStr<'a>,
    #[serde(deserialize_with = "lenient")]
    pub(super) usage: UsageHead,
    #[serde(borrow)]
    pub(super) message: MessageField<'a>,
    #[serde(borrow)]
    pub(super) content: ContentField<'a>,
    #[serde(rename = "toolUseResult", borrow)]
    pub(super) tool_use_result: Option<&'a RawValue>,
    #[serde(rename = "tool_use_result", borrow)]
    pub(super) tool_use_result_snake: Option<&'a RawValue>,
    #[serde(borrow, deserialize_with = "lenient")]
    pub(super) data: DataHead<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    pub(super) attachment: AttachmentHead<'a>,
    #[serde(rename = "compactMetadata", borrow, deserialize_with = "lenient")]
    pub(super) compact_metadata: CompactHead<'a>,
    #[serde(rename = "compact_metadata", borrow, deserialize_with = "lenient")]
    pub(super) compact_metadata_snake: CompactHead<'a>,
    #[serde(rename = "toolName", borrow)]
    pub(super) tool_name: LStr<'a>,
    #[serde(rename = "toolArguments", borrow)]
    pub(super) tool_arguments: Option<&'a RawValue>,
    pub(super) error: Shape,
    #[serde(borrow)]
    pub(super) level: LStr<'a>,
    // Fields of metadata lines.
    #[serde(borrow)]
    pub(super) summary: Option<&'a RawValue>,
    #[serde(rename = "leafUuid", borrow)]
    pub(super) leaf_uuid: LStr<'a>,
    #[serde(rename = "messageId", borrow)]
    pub(super) message_id: LStr<'a>,
    #[serde(rename = "customTitle", borrow)]
    pub(super) custom_title: Option<&'a RawValue>,
    #[serde(rename = "aiTitle", borrow)]
    pub(super) ai_title: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) title: Option<&'a RawValue>,
    #[serde(rename = "agentName", borrow)]
    pub(super) agent_name: Option<&'a RawValue>,
    #[serde(rename = "lastPrompt", borrow)]
    pub(super) last_prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) operation: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct MessageHead<'a> {
    #[serde(borrow)]
    pub(super) id: LStr<'a>,
    #[serde(borrow)]
    pub(super) model: LStr<'a>,
    #[serde(borrow)]
    pub(super) content: ContentField<'a>,
    #[serde(deserialize_with = "lenient")]
    pub(super) usage: UsageHead,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct UsageHead {
    pub(super) input_tokens: LNum,
    pub(super) output_tokens: LNum,
    pub(super) cache_creation_input_tokens: LNum,
    pub(super) cache_read_input_tokens: LNum,
    #[serde(deserialize_with = "lenient")]
    pub(super) cache_creation: CacheCreationHead,
    #[serde(deserialize_with = "lenient")]
    pub(super) server_tool_use: ServerToolUseHead,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct CacheCreationHead {
    pub(super) ephemeral_5m_input_tokens: LNum,
    pub(super) ephemeral_1h_input_tokens: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ServerToolUseHead {
    pub(super) web_search_requests: LNum,
}

impl UsageHead {
    pub(crate) fn present(&self) -> bool {
        self.input_tokens.0.is_some()
            || self.output_tokens.0.is_some()
            || self.cache_creation_input_tokens.0.is_some()
            || self.cache_read_input_tokens.0.is_some()
    }

    pub(crate) fn to_usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.as_u64(),
            output_tokens: self.output_tokens.as_u64(),
            cache_creation_input_tokens: self.cache_creation_input_tokens.as_u64(),
            cache_read_input_tokens: self.cache_read_input_tokens.as_u64(),
            cache_creation_5m: self.cache_creation.ephemeral_5m_input_tokens.as_u64(),
            cache_creation_1h: self.cache_creation.ephemeral_1h_input_tokens.as_u64(),
            web_search_requests: self.server_tool_use.web_search_requests.as_u64(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct DataHead<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) ty: LStr<'a>,
    #[serde(rename = "agentId", borrow)]
    pub(super) agent_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct AttachmentHead<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) ty: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct CompactHead<'a> {
    #[serde(borrow)]
    pub(super) trigger: LStr<'a>,
    #[serde(rename = "preTokens")]
    pub(super) pre_tokens: LNum,
    #[serde(rename = "preservedSegment", borrow, deserialize_with = "lenient")]
    pub(super) preserved: PreservedHead<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct PreservedHead<'a> {
    #[serde(rename = "headUuid", borrow)]
    pub(super) head: LStr<'a>,
    #[serde(rename = "anchorUuid", borrow)]
    pub(super) anchor: LStr<'a>,
    #[serde(rename = "tailUuid", borrow)]
    pub(super) tail: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct BlockHead<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) ty: LStr<'a>,
    #[serde(borrow)]
    pub(super) text: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) thinking: Option<&'a RawValue>,
    pub(super) signature: Shape,
    #[serde(borrow)]
    pub(super) data: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) id: LStr<'a>,
    #[serde(borrow)]
    pub(super) name: LStr<'a>,
    #[serde(borrow)]
    pub(super) input: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) tool_use_id: LStr<'a>,
    #[serde(borrow)]
    pub(super) content: Option<&'a RawValue>,
    pub(super) is_error: LBool,
    #[serde(borrow, deserialize_with = "lenient")]
    pub(super) source: SourceHead<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct SourceHead<'a> {
    #[serde(borrow)]
    pub(super) media_type: LStr<'a>,
    #[serde(borrow)]
    pub(super) data: Option<&'a RawValue>,
}

/// A content block that is not an object becomes an unknown block, not a failed line.
struct LenientBlock<'a>(BlockHead<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientBlock<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        lenient(deserializer).map(LenientBlock)
    }
}

/// `message`: an object (every current version), a plain string (older inline sidechains),
/// or absent.
#[derive(Default)]
pub(super) enum MessageField<'a> {
    #[default]
    Absent,
    Object(MessageHead<'a>),
    /// A string without escapes, borrowed from the line.
    Text(&'a str),
    /// A string with escapes: its raw span is found by a second, narrow read of the line.
    EscapedText,
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for MessageField<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MessageField<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                MessageHead::deserialize(de::value::MapAccessDeserializer::new(map)).map(MessageField::Object)
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MessageField::Text(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(MessageField::EscapedText)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(MessageField::Absent)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(MessageField::Absent)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MessageField::Other)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// `content`: a string or an array of blocks.
#[derive(Default)]
pub(super) enum ContentField<'a> {
    #[default]
    Absent,
    Text(&'a str),
    EscapedText,
    Blocks(Vec<BlockHead<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for ContentField<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentField<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(2).min(64));
                while let Some(LenientBlock(block)) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(ContentField::Blocks(blocks))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ContentField::Text(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ContentField::EscapedText)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(ContentField::Absent)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(ContentField::Absent)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ContentField::Other)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The second, narrow read for string values that had escapes.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawBodies<'a> {
    #[serde(borrow)]
    pub(super) message: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawMessageContent<'a> {
    #[serde(borrow)]
    pub(super) content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ToolResultHead<'a> {
    #[serde(rename = "agentId", borrow)]
    pub(super) agent_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ExtractedCall<'a> {
    #[serde(borrow)]
    pub(super) name: LStr<'a>,
}
