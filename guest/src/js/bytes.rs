//! The native half of `Buffer` and `crypto`: UTF-8 both ways, and digests
//! and HMACs from the RustCrypto crates.

use hmac::{Hmac, Mac};
use rquickjs::{function::Opt, Ctx, Exception, TypedArray};
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha384, Sha512};

/// A copy of the array's bytes.
fn bytes_of(array: &TypedArray<'_, u8>) -> Vec<u8> {
    // SAFETY: `as_bytes`'s contract: no JavaScript runs while the slice lives;
    // it is copied at once.
    unsafe { array.as_bytes() }.map(<[u8]>::to_vec).unwrap_or_default()
}

/// `(string) -> Uint8Array`: the string's UTF-8 (a lone surrogate as U+FFFD).
pub fn utf8_encode<'js>(ctx: Ctx<'js>, text: rquickjs::String<'js>) -> rquickjs::Result<TypedArray<'js, u8>> {
    let text = text.to_string().unwrap_or_else(|_| "\u{FFFD}".into());
    TypedArray::new(ctx, text.into_bytes())
}

/// `(Uint8Array) -> string`: the bytes as UTF-8, invalid sequences replaced.
pub fn utf8_decode<'js>(
    ctx: Ctx<'js>,
    bytes: TypedArray<'js, u8>,
) -> rquickjs::Result<rquickjs::String<'js>> {
    let bytes = bytes_of(&bytes);
    rquickjs::String::from_str(ctx, &String::from_utf8_lossy(&bytes))
}

fn hash<D: Digest>(data: &[u8]) -> Vec<u8> {
    D::digest(data).to_vec()
}

fn hmac<M: Mac + hmac::digest::KeyInit>(key: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    let mut mac = <M as hmac::digest::KeyInit>::new_from_slice(key).ok()?;
    mac.update(data);
    Some(mac.finalize().into_bytes().to_vec())
}

/// `(algorithm, data, key?) -> Uint8Array`: the digest of `data` with
/// `sha1`, `sha256`, `sha384` or `sha512`, or its HMAC under `key`.
pub fn digest<'js>(
    ctx: Ctx<'js>,
    algorithm: rquickjs::String<'js>,
    data: TypedArray<'js, u8>,
    key: Opt<TypedArray<'js, u8>>,
) -> rquickjs::Result<TypedArray<'js, u8>> {
    let algorithm = algorithm.to_string()?;
    let data = bytes_of(&data);
    let out = match key.0 {
        None => match algorithm.as_str() {
            "sha1" => Some(hash::<Sha1>(&data)),
            "sha256" => Some(hash::<Sha256>(&data)),
            "sha384" => Some(hash::<Sha384>(&data)),
            "sha512" => Some(hash::<Sha512>(&data)),
            _ => None,
        },
        Some(key) => {
            let key = bytes_of(&key);
            match algorithm.as_str() {
                "sha1" => hmac::<Hmac<Sha1>>(&key, &data),
                "sha256" => hmac::<Hmac<Sha256>>(&key, &data),
                "sha384" => hmac::<Hmac<Sha384>>(&key, &data),
                "sha512" => hmac::<Hmac<Sha512>>(&key, &data),
                _ => None,
            }
        }
    };
    match out {
        Some(bytes) => TypedArray::new(ctx, bytes),
        None => Err(Exception::throw_message(&ctx, &format!("digest algorithm not supported: {algorithm}"))),
    }
}
