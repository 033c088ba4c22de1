//! `report.html` of a batch: a summary table and every photo with its thumbnail, verdict and
//! time, sortable by any column (a few lines of script; the page needs nothing else).

use std::fmt::Write as _;
use std::path::Path;

use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};

use super::batch::{PhotoResult, Summary};

const STYLE: &str = "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\
td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:middle}th{cursor:pointer;\
background:#eee}.s0{color:#080}.s1{color:#c00}.s2{color:#888}.s3{color:#b60}img{display:block}";

/// Sorts the photo table by the clicked column: numbers as numbers, the rest as text.
const SCRIPT: &str = "document.querySelectorAll('#photos th').forEach((th,i)=>th.onclick=()=>{\
const b=th.closest('table').tBodies[0],up=th.dataset.up!=='1';th.dataset.up=up?'1':'0';\
const k=r=>r.cells[i].dataset.k??r.cells[i].textContent;\
[...b.rows].sort((x,y)=>{const p=k(x),q=k(y),n=parseFloat(p)-parseFloat(q);\
const c=isNaN(n)?p.localeCompare(q):n;return up?c:-c}).forEach(r=>b.appendChild(r))});";

pub fn write_report(
    path: &Path,
    dir: &Path,
    results: &[PhotoResult],
    summary: &Summary,
) -> std::io::Result<()> {
    let mut html = String::new();
    // Writing into a String cannot fail.
    let _ = write!(
        html,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>tablejudge batch: {}</title>\
         <style>{STYLE}</style></head><body><h1>tablejudge batch: {}</h1>",
        text(&dir.display().to_string()),
        text(&dir.display().to_string()),
    );
    let rate = summary
        .photos_per_second
        .map(|r| format!("{r:.1} photos/s on {} threads", summary.threads))
        .unwrap_or_else(|| "nothing judged in the last run".to_owned());
    let _ = write!(
        html,
        "<table id=\"summary\"><tr><th>photos</th><td>{}</td></tr>\
         <tr><th class=\"s0\">match</th><td>{}</td></tr>\
         <tr><th class=\"s1\">mismatch</th><td>{}</td></tr>\
         <tr><th class=\"s3\">undecided</th><td>{}</td></tr>\
         <tr><th class=\"s2\">unreadable</th><td>{}</td></tr>\
         <tr><th>last run</th><td>{} judged, {}</td></tr></table>",
        summary.photos,
        summary.matched,
        summary.mismatched,
        summary.undecided,
        summary.unreadable,
        summary.judged_now,
        text(&rate),
    );
    if !summary.not_walked.is_empty() {
        html.push_str("<h2>Not walked</h2><ul>");
        for why in &summary.not_walked {
            let _ = write!(html, "<li>{}</li>", text(why));
        }
        html.push_str("</ul>");
    }
    html.push_str(
        "<h2>Photos</h2><p>Click a column's title to sort by it.</p><table id=\"photos\">\
         <thead><tr><th>annotated</th><th>photo</th><th>verdict</th><th>status</th><th>ms</th>\
         <th>detail</th></tr></thead><tbody>",
    );
    for r in results {
        let picture = match (&r.annotated, &r.thumbnail) {
            (Some(full), Some(thumb)) => format!(
                "<a href=\"{}\"><img src=\"{}\" width=\"160\" alt=\"\"></a>",
                attr(full),
                attr(thumb)
            ),
            _ => String::new(),
        };
        let _ = write!(
            html,
            "<tr><td>{picture}</td><td>{}</td><td class=\"s{}\">{}</td><td>{}</td>\
             <td data-k=\"{:.3}\">{:.0}</td><td>{}</td></tr>",
            text(&r.photo),
            r.status,
            text(&r.verdict),
            r.status,
            r.ms,
            r.ms,
            text(&r.headline),
        );
    }
    let _ = writeln!(
        html,
        "</tbody></table><script>{SCRIPT}</script></body></html>"
    );
    std::fs::write(path, html)
}
