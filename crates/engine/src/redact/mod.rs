//! Redaction of secrets and personal data (being written).
