// The other pages of the books site: product detail (structure of the real saved detail page,
// whitespace condensed), and the pages a blocked site answers with (challenge, login, errors).
import type { Book } from "./books-data.js";
import { escapeHtml, imagePath } from "./books-markup.js";

const STARS = '        <i class="icon-star"></i>\n'.repeat(5);

/** `/catalogue/<slug>/index.html`: links are relative to `/catalogue/<slug>/`. */
export function renderDetailPage(book: Book, priceClass: string): string {
  const title = escapeHtml(book.title);
  const price = escapeHtml(book.price);
  const detail = escapeHtml(book.availability_detail);
  return `
<!DOCTYPE html>
<!--[if gt IE 8]><!--> <html lang="en-us" class="no-js"> <!--<![endif]-->
    <head>
        <title>
    ${title} | Books to Scrape - Sandbox
</title>
        <meta http-equiv="content-type" content="text/html; charset=UTF-8" />
        <meta name="created" content="24th Jun 2016 09:29" />
        <meta name="description" content="" />
        <meta name="viewport" content="width=device-width" />
        <meta name="robots" content="NOARCHIVE,NOCACHE" />
        <link rel="stylesheet" type="text/css" href="../../static/oscar/css/styles.css" />
    </head>
    <body id="default" class="default">
    <header class="header container-fluid">
        <div class="page_inner">
            <div class="row">
                <div class="col-sm-8 h1"><a href="../../index.html">Books to Scrape</a><small> We love being scraped!</small>
</div>
            </div>
        </div>
    </header>
        <div class="container-fluid page">
            <div class="page_inner">
<ul class="breadcrumb">
    <li>
        <a href="../../index.html">Home</a>
    </li>
        <li>
            <a href="../category/books_1/index.html">Books</a>
        </li>
        <li>
            <a href="../category/books/${book.category_slug}/index.html">${escapeHtml(book.category)}</a>
        </li>
        <li class="active">${title}</li>
</ul>
<div id="messages">
</div>
                <div class="content">
                    <div id="promotions">
                    </div>
                    <div id="content_inner">
<article class="product_page"><!-- Start of product page -->
    <div class="row">
        <div class="col-sm-6">
        <div id="product_gallery" class="carousel">
            <div class="thumbnail">
                <div class="carousel-inner">
                    <div class="item active">
                            <img src="../../${imagePath(book)}" alt="${title}" />
                    </div>
                </div>
            </div>
        </div>
        </div>
        <div class="col-sm-6 product_main">
            <h1>${title}</h1>
        <p class="${priceClass}">${price}</p>
<p class="instock availability">
    <i class="icon-ok"></i>
        ${detail}
</p>
    <p class="star-rating ${book.rating}">
${STARS}    </p>
            <hr/>
            <div class="alert alert-warning" role="alert"><strong>Warning!</strong> This is a demo website for web scraping purposes. Prices and ratings here were randomly assigned and have no real meaning.</div>
        </div><!-- /col-sm-6 -->
    </div><!-- /row -->
    <div class="sub-header">
        <h2>Product Information</h2>
    </div>
    <table class="table table-striped">
        <tr><th>UPC</th><td>${escapeHtml(book.upc)}</td></tr>
        <tr><th>Product Type</th><td>Books</td></tr>
        <tr><th>Price (excl. tax)</th><td>${price}</td></tr>
        <tr><th>Price (incl. tax)</th><td>${price}</td></tr>
        <tr><th>Tax</th><td>£0.00</td></tr>
        <tr><th>Availability</th><td>${detail}</td></tr>
        <tr><th>Number of reviews</th><td>0</td></tr>
    </table>
</article><!-- End of product page -->
</div>
                </div>
            </div>
        </div>
<footer class="footer container-fluid">
</footer>
    </body>
</html>
`;
}

/** A Cloudflare-like interstitial ("Just a moment..."): no catalogue content at all. */
export function renderChallengePage(host: string): string {
  const ray = "8f2b1c3d4e5a6b7c";
  return `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15}body{display:flex;flex-direction:column;height:100vh;min-height:100vh}.main-content{margin:8rem auto;max-width:60rem;width:100%}</style><meta http-equiv="refresh" content="390"></head><body class="no-js"><div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">${escapeHtml(host)}</h1><h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2><noscript><div id="challenge-error-title"><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></div></noscript><div id="challenge-body-text" class="core-msg spacer">${escapeHtml(host)} needs to review the security of your connection before proceeding.</div><form id="challenge-form" action="/?__cf_chl_f_tk=x" method="POST" enctype="application/x-www-form-urlencoded"><input type="hidden" name="md" value="x"></form></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "${escapeHtml(host)}",cType: 'managed',cNounce: '41213',cRay: '${ray}',cHash: 'a1b2c3d4e5f6a7b',cFPWv: 'b'};}());</script><div class="footer" role="contentinfo"><div class="footer-inner"><div class="clearfix diagnostic-wrapper"><div class="ray-id">Ray ID: <code>${ray}</code></div></div><div class="text-center" id="footer-text">Performance &amp; security by Cloudflare</div></div></div></body></html>`;
}

/** Where `login_redirect` sends a reader: a sign-in form with a password field. */
export function renderLoginPage(next: string): string {
  return `<!DOCTYPE html>
<html lang="en-us">
<head><meta charset="utf-8"><title>Login | Books to Scrape - Sandbox</title></head>
<body>
<h1>Log in</h1>
<form id="login_form" method="post" action="/login">
  <input type="hidden" name="next" value="${escapeHtml(next)}">
  <label for="id_login-username">Email address</label>
  <input type="email" name="login-username" id="id_login-username" autocomplete="username" required>
  <label for="id_login-password">Password</label>
  <input type="password" name="login-password" id="id_login-password" autocomplete="current-password" required>
  <button type="submit" name="login_submit" value="Log In">Log In</button>
</form>
</body>
</html>
`;
}

/** A short HTML error page (404, 403, 429, 405). */
export function renderErrorPage(status: number, text: string): string {
  return `<!DOCTYPE html>
<html lang="en-us">
<head><meta charset="utf-8"><title>${status} ${escapeHtml(text)}</title></head>
<body><h1>${status} ${escapeHtml(text)}</h1></body>
</html>
`;
}
