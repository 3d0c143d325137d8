//! Passphrase protection of share links with WebCrypto: PBKDF2-SHA-256 derives an AES-GCM key
//! from the passphrase and a random salt; each link has its own random IV. The engine packs the
//! parameters into the envelope ([`sessionscope_engine::share::envelope`]).

use js_sys::{Array, Object, Reflect, Uint8Array};
use sessionscope_engine::share::envelope::{IV_LEN, SALT_LEN, Sealing};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Why WebCrypto could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CryptoError {
    /// The browser has no WebCrypto.
    Missing,
    /// The page is not a secure context (plain http on another host): `subtle` is missing.
    NotSecure,
    NoRandomNumbers,
    /// The GCM tag check failed: a wrong passphrase, or a damaged link.
    WrongPassphrase,
    /// WebCrypto refused (its words are in the console).
    Refused,
}

impl std::fmt::Display for CryptoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CryptoError::Missing => f.write_str("this browser has no WebCrypto"),
            CryptoError::NotSecure => f.write_str("passphrases need a secure page (https, localhost or a file)"),
            CryptoError::NoRandomNumbers => f.write_str("no random numbers available"),
            CryptoError::WrongPassphrase => f.write_str("wrong passphrase (or the link is damaged)"),
            CryptoError::Refused => f.write_str("the browser's cryptography refused to seal or open the link"),
        }
    }
}

fn crypto() -> Result<web_sys::Crypto, CryptoError> {
    web_sys::window().and_then(|w| w.crypto().ok()).ok_or(CryptoError::Missing)
}

fn subtle() -> Result<web_sys::SubtleCrypto, CryptoError> {
    let crypto = crypto()?;
    // `subtle` is missing outside secure contexts (plain http on another host).
    if !super::browser::has(super::browser::Feature::WebCrypto) {
        return Err(CryptoError::NotSecure);
    }
    Ok(crypto.subtle())
}

pub fn random_bytes<const N: usize>() -> Result<[u8; N], CryptoError> {
    let mut out = [0u8; N];
    crypto()?.get_random_values_with_u8_array(&mut out).map_err(|_| CryptoError::NoRandomNumbers)?;
    Ok(out)
}

fn object(pairs: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in pairs {
        let _ = Reflect::set(&object, &(*key).into(), value);
    }
    object
}

/// WebCrypto's refusal, said by its kind; its own words go to the console
/// ([`super::errors::DomError`]).
fn error_text(error: JsValue) -> CryptoError {
    let _said = super::errors::DomError::of(&error);
    CryptoError::Refused
}

async fn derive_key(passphrase: &str, sealing: &Sealing) -> Result<web_sys::CryptoKey, CryptoError> {
    let subtle = subtle()?;
    let material = Uint8Array::from(passphrase.as_bytes());
    let usages = Array::of1(&"deriveKey".into());
    let base = subtle.import_key_with_str("raw", &material, "PBKDF2", false, &usages).map_err(error_text)?;
    let base: web_sys::CryptoKey = JsFuture::from(base).await.map_err(error_text)?.unchecked_into();
    let params = object(&[
        ("name", "PBKDF2".into()),
        ("salt", Uint8Array::from(&sealing.salt[..]).into()),
        ("iterations", sealing.iterations.into()),
        ("hash", "SHA-256".into()),
    ]);
    let aes = object(&[("name", "AES-GCM".into()), ("length", 256.into())]);
    let usages = Array::of2(&"encrypt".into(), &"decrypt".into());
    let key = subtle.derive_key_with_object_and_object(&params, &base, &aes, false, &usages).map_err(error_text)?;
    Ok(JsFuture::from(key).await.map_err(error_text)?.unchecked_into())
}

/// Encrypts `plain` under a key derived from `passphrase`, with fresh salt and IV.
pub async fn encrypt(passphrase: &str, plain: &[u8], iterations: u32) -> Result<(Sealing, Vec<u8>), CryptoError> {
    let sealing = Sealing { iterations, salt: random_bytes::<SALT_LEN>()?, iv: random_bytes::<IV_LEN>()? };
    let key = derive_key(passphrase, &sealing).await?;
    let params = object(&[("name", "AES-GCM".into()), ("iv", Uint8Array::from(&sealing.iv[..]).into())]);
    let promise =
        subtle()?.encrypt_with_object_and_buffer_source(&params, &key, &Uint8Array::from(plain)).map_err(error_text)?;
    let cipher = JsFuture::from(promise).await.map_err(error_text)?;
    Ok((sealing, Uint8Array::new(&cipher).to_vec()))
}

/// Decrypts a body; a wrong passphrase (or a damaged link) fails the GCM tag check.
pub async fn decrypt(passphrase: &str, sealing: &Sealing, cipher: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let key = derive_key(passphrase, sealing).await?;
    let params = object(&[("name", "AES-GCM".into()), ("iv", Uint8Array::from(&sealing.iv[..]).into())]);
    let promise = subtle()?
        .decrypt_with_object_and_buffer_source(&params, &key, &Uint8Array::from(cipher))
        .map_err(error_text)?;
    match JsFuture::from(promise).await {
        Ok(plain) => Ok(Uint8Array::new(&plain).to_vec()),
        Err(_) => Err(CryptoError::WrongPassphrase),
    }
}

/// `sha256-<base64>` of a text, for a Content-Security-Policy source.
pub async fn csp_hash(text: &str) -> Result<String, CryptoError> {
    let promise = subtle()?
        .digest_with_str_and_buffer_source("SHA-256", &Uint8Array::from(text.as_bytes()))
        .map_err(error_text)?;
    let digest = Uint8Array::new(&JsFuture::from(promise).await.map_err(error_text)?).to_vec();
    Ok(format!("sha256-{}", sessionscope_engine::share::envelope::to_base64(&digest)))
}
