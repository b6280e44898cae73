//! Screenshots, icon and `icon_asset`.

use super::super::raw::Manifest;
use super::super::rules;
use super::{Cx, err};
use crate::diagnostic::Code;
use crate::ptr;

pub(super) fn media(cx: &mut Cx, m: &Manifest) {
    let n = m.screenshots.len();
    cx.check(n <= 8, || {
        err(
            Code::AoeScreenshot,
            format!("at most 8 screenshots are allowed (got {n})"),
            ptr!["screenshots", 8],
        )
        .on_key()
        .label("the ninth screenshot")
    });
    for (i, s) in m.screenshots.iter().enumerate() {
        cx.check(rules::screenshot_path_ok(&s.path), || {
            err(
                Code::AoeScreenshot,
                format!(
                    "screenshots[{i}].path {:?} must be a repository-relative image path \
                     (png/jpg/jpeg/gif/webp), not a URL or an absolute/traversing path",
                    s.path
                ),
                ptr!["screenshots", i, "path"],
            )
        });
        cx.check(!s.alt.trim().is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("screenshots[{i}].alt must not be empty"),
                ptr!["screenshots", i, "alt"],
            )
        });
    }
    if let Some(icon) = &m.icon {
        cx.check(rules::lucide_icon_name_ok(icon), || {
            err(
                Code::AoeIcon,
                format!("icon {icon:?} must be a lucide kebab-case icon name"),
                ptr!["icon"],
            )
            .help("lowercase words joined by single hyphens, e.g. \"git-branch\"")
        });
    }
    if let Some(path) = &m.icon_asset {
        cx.check(rules::screenshot_path_ok(path), || {
            err(
                Code::AoeIcon,
                format!(
                    "icon_asset {path:?} must be a repository-relative image path \
                     (png/jpg/jpeg/gif/webp), not a URL or an absolute/traversing path"
                ),
                ptr!["icon_asset"],
            )
        });
    }
}
