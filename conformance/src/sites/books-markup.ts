// Markup of books.toscrape.com (Django-Oscar "Books to Scrape - Sandbox"), reproduced from the saved
// pages in conformance/fixtures/books/ (index.html, a-light-in-the-attic_1000.html), template
// whitespace included, so pages weigh about what the real ones do (~40 KB a listing page).
// Deliberate differences: no external or static <script> tags (a browser run stays on loopback and
// needs nothing but the page), and the last listing page marks its `li.current` with `last-page`.
import type { Book } from "./books-data.js";

export type RenderMode = "static" | "script";

export interface Category {
  readonly slug: string;
  readonly name: string;
}

export interface ListingPage {
  /** The books on this page, already sliced. */
  readonly books: readonly Book[];
  readonly page: number;
  readonly pageCount: number;
  /** Number of books in the whole catalogue. */
  readonly total: number;
  /** Index (0-based) of this page's first book in the catalogue. */
  readonly offset: number;
  /** true for `/` and `/index.html`: links are relative to the root instead of `/catalogue/`. */
  readonly atRoot: boolean;
  readonly render: RenderMode;
  /** `price_color` normally, `price` when selectors drift. */
  readonly priceClass: string;
  readonly categories: readonly Category[];
}

const WARNING =
  '<div class="alert alert-warning" role="alert"><strong>Warning!</strong> This is a demo website for web scraping purposes. Prices and ratings here were randomly assigned and have no real meaning.</div>';

/** Django's HTML escaping (`It's` → `It&#39;s`). */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Django's `truncatewords:4`, as used for the `h3 > a` link text. */
export function shortTitle(title: string): string {
  const words = title.split(/\s+/).filter((w) => w !== "");
  return words.length > 4 ? `${words.slice(0, 4).join(" ")} ...` : words.join(" ");
}

/** `https://books.toscrape.com/media/cache/fe/72/x.jpg` → `media/cache/fe/72/x.jpg`. */
export function imagePath(book: Book): string {
  const at = book.image_url.indexOf("media/");
  return at >= 0 ? book.image_url.slice(at) : `media/cache/${book.slug}.jpg`;
}

function head(title: string, up: string): string {
  return `
<!DOCTYPE html>
<!--[if lt IE 7]>      <html lang="en-us" class="no-js lt-ie9 lt-ie8 lt-ie7"> <![endif]-->
<!--[if IE 7]>         <html lang="en-us" class="no-js lt-ie9 lt-ie8"> <![endif]-->
<!--[if IE 8]>         <html lang="en-us" class="no-js lt-ie9"> <![endif]-->
<!--[if gt IE 8]><!--> <html lang="en-us" class="no-js"> <!--<![endif]-->
    <head>
        <title>
    ${escapeHtml(title)} | Books to Scrape - Sandbox
</title>

        <meta http-equiv="content-type" content="text/html; charset=UTF-8" />
        <meta name="created" content="24th Jun 2016 09:29" />
        <meta name="description" content="" />
        <meta name="viewport" content="width=device-width" />
        <meta name="robots" content="NOARCHIVE,NOCACHE" />

        <!-- Le HTML5 shim, for IE6-8 support of HTML elements -->
        <!--[if lt IE 9]>
        <script src="//html5shim.googlecode.com/svn/trunk/html5.js"></script>
        <![endif]-->


            <link rel="shortcut icon" href="${up}static/oscar/favicon.ico" />






        <link rel="stylesheet" type="text/css" href="${up}static/oscar/css/styles.css" />

    <link rel="stylesheet" href="${up}static/oscar/js/bootstrap-datetimepicker/bootstrap-datetimepicker.css" />
    <link rel="stylesheet" type="text/css" href="${up}static/oscar/css/datetimepicker.css" />












    </head>

    <body id="default" class="default">




    <header class="header container-fluid">
        <div class="page_inner">
            <div class="row">
                <div class="col-sm-8 h1"><a href="${up}index.html">Books to Scrape</a><small> We love being scraped!</small>
</div>


            </div>
        </div>
    </header>
`;
}

const FOOT = `


<footer class="footer container-fluid">



</footer>





            <!-- Scripts of the real site (jQuery from ajax.googleapis.com, Bootstrap, Oscar) left out. -->
`;

const END = `

        <!-- Version: N/A -->

    </body>
</html>
`;

function sidebar(p: ListingPage, cat: string): string {
  const entries = p.categories.map(
    (c) => `


                    <li>
                        <a href="${cat}category/books/${c.slug}/index.html">

                                ${escapeHtml(c.name)}

                        </a>

                        </li>`,
  );
  return `
        <div class="side_categories">
            <ul class="nav nav-list">

                    <li>
                        <a href="${cat}category/books_1/index.html">

                                Books

                        </a>

                        <ul>${entries.join("")}

                            </ul></li>


            </ul>
        </div>
`;
}

/** One `li > article.product_pod`, whitespace as on the real page. */
export function productPod(book: Book, cat: string, up: string, priceClass: string): string {
  const href = `${cat}${book.slug}/index.html`;
  const title = escapeHtml(book.title);
  return `
                        <li class="col-xs-6 col-sm-4 col-md-3 col-lg-3">






    <article class="product_pod">

            <div class="image_container">


                    <a href="${href}"><img src="${up}${imagePath(book)}" alt="${title}" class="thumbnail"></a>


            </div>




                <p class="star-rating ${book.rating}">
                    <i class="icon-star"></i>
                    <i class="icon-star"></i>
                    <i class="icon-star"></i>
                    <i class="icon-star"></i>
                    <i class="icon-star"></i>
                </p>




            <h3><a href="${href}" title="${title}">${escapeHtml(shortTitle(book.title))}</a></h3>



            <div class="product_price">








        <p class="${priceClass}">${escapeHtml(book.price)}</p>


<p class="instock availability">
    <i class="icon-ok"></i>

        ${escapeHtml(book.availability)}

</p>










    <form>
        <button type="submit" class="btn btn-primary btn-block" data-loading-text="Adding...">Add to basket</button>
    </form>



            </div>

    </article>

</li>
`;
}

function pager(p: ListingPage, cat: string): string {
  const last = p.page >= p.pageCount;
  const previous =
    p.page > 1
      ? `
                <li class="previous"><a href="${cat}page-${p.page - 1}.html">previous</a></li>
`
      : "";
  const next = last
    ? ""
    : `
                <li class="next"><a href="${cat}page-${p.page + 1}.html">next</a></li>
`;
  return `
    <div>
        <ul class="pager">
${previous}
            <li class="${last ? "current last-page" : "current"}">

                Page ${p.page} of ${p.pageCount}

            </li>
${next}
        </ul>
    </div>
`;
}

/** Data and renderer for the script variant: fills `ol.row` with DOM calls, no markup in strings. */
function clientScript(p: ListingPage, cat: string, up: string): string {
  const data = {
    priceClass: p.priceClass,
    items: p.books.map((b) => ({
      href: `${cat}${b.slug}/index.html`,
      img: `${up}${imagePath(b)}`,
      title: b.title,
      short: shortTitle(b.title),
      rating: b.rating,
      price: b.price,
      availability: b.availability,
    })),
  };
  // JSON inside <script>: escape "<" so no value can close the element.
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  return `
        <script type="application/json" id="books-data">${json}</script>
        <script type="text/javascript">
(function () {
  var data = JSON.parse(document.getElementById("books-data").textContent);
  var list = document.querySelector("ol.row");
  function el(tag, cls, parent) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    parent.appendChild(e);
    return e;
  }
  data.items.forEach(function (b) {
    var li = el("li", "col-xs-6 col-sm-4 col-md-3 col-lg-3", list);
    var pod = el("article", "product" + "_pod", li);
    var a = el("a", "", el("div", "image_container", pod));
    a.setAttribute("href", b.href);
    var img = el("img", "thumbnail", a);
    img.setAttribute("src", b.img);
    img.setAttribute("alt", b.title);
    var stars = el("p", "star-rating " + b.rating, pod);
    for (var i = 0; i < 5; i++) el("i", "icon-star", stars);
    var link = el("a", "", el("h3", "", pod));
    link.setAttribute("href", b.href);
    link.setAttribute("title", b.title);
    link.textContent = b.short;
    var box = el("div", "product_price", pod);
    el("p", data.priceClass, box).textContent = b.price;
    var avail = el("p", "instock availability", box);
    el("i", "icon-ok", avail);
    avail.appendChild(document.createTextNode("\\n\\n        " + b.availability + "\\n\\n"));
    var button = el("button", "btn btn-primary btn-block", el("form", "", box));
    button.setAttribute("type", "submit");
    button.setAttribute("data-loading-text", "Adding...");
    button.textContent = "Add to basket";
  });
})();
        </script>
`;
}

/** A catalogue page: `/index.html` (atRoot) or `/catalogue/page-N.html`. */
export function renderListingPage(p: ListingPage): string {
  const up = p.atRoot ? "" : "../";
  const cat = p.atRoot ? "catalogue/" : "";
  const items = p.render === "static" ? p.books.map((b) => productPod(b, cat, up, p.priceClass)).join("") : "";
  const from = p.books.length === 0 ? 0 : p.offset + 1;
  return `${head("All products", up)}


<div class="container-fluid page">
    <div class="page_inner">

    <ul class="breadcrumb">
        <li>
            <a href="${up}index.html">Home</a>
        </li>
        <li class="active">All products</li>
    </ul>

        <div class="row">

            <aside class="sidebar col-sm-4 col-md-3">

                <div id="promotions_left">

                </div>



${sidebar(p, cat)}


            </aside>

            <div class="col-sm-8 col-md-9">

                <div class="page-header action">
                    <h1>All products</h1>
                </div>






<div id="messages">

</div>


                <div id="promotions">

                </div>


    <form method="get" class="form-horizontal">

        <div style="display:none">


        </div>




                    <strong>${p.total}</strong> results - showing <strong>${from}</strong> to <strong>${p.offset + p.books.length}</strong>.




    </form>

        <section>
            ${WARNING}

            <div>
                <ol class="row">
${items}
                </ol>



${pager(p, cat)}

            </div>
        </section>



            </div>

        </div><!-- /row -->
    </div><!-- /page_inner -->
</div><!-- /container-fluid -->
${FOOT}${p.render === "script" ? clientScript(p, cat, up) : ""}${END}`;
}
