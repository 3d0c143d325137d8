//! Passphrase protection of share links with WebCrypto: PBKDF2-SHA-256 derives an AES-GCM key
//! from the passphrase and a random salt; each link has its own random IV. The engine packs the
//! parameters into the envelope ([`sessionscope_engine::share::envelope`]).

use js_sys::{Array, Object, Reflect, Uint8Array};
use sessionscope_engine::share::envelope::{IV_LEN, SALT_LEN, Sealing};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn crypto() -> Result<web_sys::Crypto, String> {
    web_sys::window().and_then(|w| w.crypto().ok()).ok_or_else(|| "this browser has no WebCrypto".to_owned())
}

fn subtle() -> Result<web_sys::SubtleCrypto, String> {
    let crypto = crypto()?;
    // `subtle` is missing outside secure contexts (plain http on another host).
    if Reflect::get(&crypto, &"subtle".into()).map_or(true, |v| v.is_undefined()) {
        return Err("passphrases need a secure page (https, localhost or a file)".to_owned());
    }
    Ok(crypto.subtle())
}

pub fn random_bytes<const N: usize>() -> Result<[u8; N], String> {
    let mut out = [0u8; N];
    crypto()?.get_random_values_with_u8_array(&mut out).map_err(|_| "no random numbers available".to_owned())?;
    Ok(out)
}

fn object(pairs: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in pairs {
        let _ = Reflect::set(&object, &(*key).into(), value);
    }
    object
}

fn error_text(error: JsValue) -> String {
    Reflect::get(&error, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_else(|| format!("{error:?}"))
}

async fn derive_key(passphrase: &str, sealing: &Sealing) -> Result<web_sys::CryptoKey, String> {
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
pub async fn encrypt(passphrase: &str, plain: &[u8], iterations: u32) -> Result<(Sealing, Vec<u8>), String> {
    let sealing = Sealing { iterations, salt: random_bytes::<SALT_LEN>()?, iv: random_bytes::<IV_LEN>()? };
    let key = derive_key(passphrase, &sealing).await?;
    let params = object(&[("name", "AES-GCM".into()), ("iv", Uint8Array::from(&sealing.iv[..]).into())]);
    let promise =
        subtle()?.encrypt_with_object_and_buffer_source(&params, &key, &Uint8Array::from(plain)).map_err(error_text)?;
    let cipher = JsFuture::from(promise).await.map_err(error_text)?;
    Ok((sealing, Uint8Array::new(&cipher).to_vec()))
}

/// Decrypts a body; a wrong passphrase (or a damaged link) fails the GCM tag check.
pub async fn decrypt(passphrase: &str, sealing: &Sealing, cipher: &[u8]) -> Result<Vec<u8>, String> {
    let key = derive_key(passphrase, sealing).await?;
    let params = object(&[("name", "AES-GCM".into()), ("iv", Uint8Array::from(&sealing.iv[..]).into())]);
    let promise = subtle()?
        .decrypt_with_object_and_buffer_source(&params, &key, &Uint8Array::from(cipher))
        .map_err(error_text)?;
    match JsFuture::from(promise).await {
        Ok(plain) => Ok(Uint8Array::new(&plain).to_vec()),
        Err(_) => Err("wrong passphrase (or the link is damaged)".to_owned()),
    }
}

/// `sha256-<base64>` of a text, for a Content-Security-Policy source.
pub async fn csp_hash(text: &str) -> Result<String, String> {
    let promise = subtle()?
        .digest_with_str_and_buffer_source("SHA-256", &Uint8Array::from(text.as_bytes()))
        .map_err(error_text)?;
    let digest = Uint8Array::new(&JsFuture::from(promise).await.map_err(error_text)?).to_vec();
    Ok(format!("sha256-{}", sessionscope_engine::share::envelope::to_base64(&digest)))
}
