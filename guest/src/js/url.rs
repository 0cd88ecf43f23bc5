//! WHATWG URLs for the prelude's `URL` and `URLSearchParams`: parsing,
//! setters and `application/x-www-form-urlencoded`, all by the `url` crate
//! (its `quirks` module is the WHATWG API).

use url::{quirks, Url};

/// The parts of a URL, in the order the prelude reads them.
fn parts(url: &Url) -> Vec<String> {
    [
        quirks::href(url),
        &quirks::origin(url),
        quirks::protocol(url),
        quirks::username(url),
        quirks::password(url),
        quirks::host(url),
        quirks::hostname(url),
        quirks::port(url),
        quirks::pathname(url),
        quirks::search(url),
        quirks::hash(url),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

/// `urlop(op, a, b, c)`:
/// - `0, input, base?` parses (`undefined` when it does not parse);
/// - `1, href, part, value` sets a part (`undefined` when the setter refuses
///   a `href`; other setters leave the URL as it was, as WHATWG's do);
/// - `2, query` reads form data into `[name, value, …]`;
/// - `3, [name, value, …]` writes it.
pub fn urlop<'js>(
    ctx: rquickjs::Ctx<'js>,
    op: i32,
    a: rquickjs::Value<'js>,
    b: rquickjs::function::Opt<rquickjs::Value<'js>>,
    c: rquickjs::function::Opt<String>,
) -> rquickjs::Result<rquickjs::Value<'js>> {
    use rquickjs::IntoJs;
    let text = |v: &rquickjs::Value<'js>| v.as_string().and_then(|s| s.to_string().ok());
    let b = b.0.unwrap_or_else(|| rquickjs::Value::new_undefined(ctx.clone()));
    match op {
        0 => {
            let input = text(&a).unwrap_or_default();
            let parsed = match text(&b) {
                Some(base) => Url::parse(&base).and_then(|base| base.join(&input)),
                None => Url::parse(&input),
            };
            parsed.ok().map(|url| parts(&url)).into_js(&ctx)
        }
        1 => {
            let Some(mut url) = text(&a).and_then(|href| Url::parse(&href).ok()) else {
                return Ok(rquickjs::Value::new_undefined(ctx));
            };
            let value = c.0.unwrap_or_default();
            let part = text(&b).unwrap_or_default();
            // Only `href` refuses; the others ignore what they cannot take.
            let ignored = |_: Result<(), ()>| true;
            let ok = match part.as_str() {
                "href" => quirks::set_href(&mut url, &value).is_ok(),
                "protocol" => ignored(quirks::set_protocol(&mut url, &value)),
                "username" => ignored(quirks::set_username(&mut url, &value)),
                "password" => ignored(quirks::set_password(&mut url, &value)),
                "host" => ignored(quirks::set_host(&mut url, &value)),
                "hostname" => ignored(quirks::set_hostname(&mut url, &value)),
                "port" => ignored(quirks::set_port(&mut url, &value)),
                "pathname" => {
                    quirks::set_pathname(&mut url, &value);
                    true
                }
                "search" => {
                    quirks::set_search(&mut url, &value);
                    true
                }
                "hash" => {
                    quirks::set_hash(&mut url, &value);
                    true
                }
                _ => false,
            };
            ok.then(|| parts(&url)).into_js(&ctx)
        }
        2 => {
            let query = text(&a).unwrap_or_default();
            let pairs: Vec<String> = url::form_urlencoded::parse(query.as_bytes())
                .flat_map(|(k, v)| [k.into_owned(), v.into_owned()])
                .collect();
            pairs.into_js(&ctx)
        }
        _ => {
            let list: Vec<String> = rquickjs::FromJs::from_js(&ctx, a).unwrap_or_default();
            let mut out = url::form_urlencoded::Serializer::new(String::new());
            for pair in list.chunks(2) {
                if let [k, v] = pair {
                    out.append_pair(k, v);
                }
            }
            out.finish().into_js(&ctx)
        }
    }
}
