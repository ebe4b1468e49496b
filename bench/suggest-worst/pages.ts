// The worst pages for suggestions that stay within the document limits (core/src/reading/document-limits.ts):
// each at most 100,000 elements, depth 256 and a total depth of 3,000,000, and under the 10 MB a read takes.

const doc = (body: string, title = "Worst page") =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

const repeat = (n: number, make: (i: number) => string) => {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(make(i));
  return parts.join("");
};

export interface WorstPage {
  readonly slug: string;
  readonly what: string;
  readonly html: string;
}

export const worstPages = (): WorstPage[] => [
  {
    slug: "flat-list",
    what: "one list of 99,000 like items, text only",
    html: doc(`<ul class="results">${repeat(99_000, (i) => `<li>Item number ${i}</li>`)}</ul>`),
  },
  {
    slug: "records",
    what: "24,000 records of four elements (link, price, text) in one listing",
    html: doc(
      `<main><div class="results">${repeat(
        24_000,
        (i) =>
          `<div class="item"><a href="/p/${i}">Product ${i}</a><span class="price">$${i}.99</span><p class="blurb">Thing ${i % 97}</p></div>`,
      )}</div></main>`,
    ),
  },
  {
    slug: "records-wrapped",
    what: "12,000 records of eight elements, each wrapped, in a grid of rows",
    html: doc(
      `<main>${repeat(
        1_500,
        (r) =>
          `<div class="row">${repeat(8, (c) => {
            const i = r * 8 + c;
            return `<div class="col"><article class="card"><h3><a href="/p/${i}">Product ${i}</a></h3><span class="price">$${i}.99</span><time datetime="2020-01-${(i % 28) + 1}">Jan ${(i % 28) + 1}</time></article></div>`;
          })}</div>`,
      )}</main>`,
    ),
  },
  {
    slug: "class-lists",
    what: "9,000 records with 60 classes each, every class shared by three records",
    html: doc(
      `<div class="list">${repeat(9_000, (i) => {
        const classes = repeat(60, (k) => `k${k}-${Math.floor(i / 3)} `);
        return `<div class="r ${classes}"><a href="/p/${i}">Record ${i}</a><span>${i}</span></div>`;
      })}</div>`,
    ),
  },
  {
    slug: "deep-records",
    what: "30,000 records three deep under a chain 25 deep (total depth near the bound)",
    html: doc(
      `${'<div class="w">'.repeat(25)}<section class="list">${repeat(
        30_000,
        (i) => `<div class="rec"><a href="/p/${i}">Record ${i}</a><b>${i}</b></div>`,
      )}</section>${"</div>".repeat(25)}`,
    ),
  },
  {
    slug: "table",
    what: "a table of 8,000 rows of ten cells",
    html: doc(
      `<table><tr>${repeat(10, (c) => `<th>Col ${c}</th>`)}</tr>${repeat(
        8_000,
        (r) => `<tr>${repeat(10, (c) => `<td>${c === 0 ? `<a href="/r/${r}">Row ${r}</a>` : r * c}</td>`)}</tr>`,
      )}</table>`,
    ),
  },
  {
    slug: "many-tables",
    what: "3,000 small tables of ten rows of two cells",
    html: doc(
      repeat(
        3_000,
        (t) => `<table class="t">${repeat(10, (r) => `<tr><td>Key ${t}-${r}</td><td>${t * r}</td></tr>`)}</table>`,
      ),
    ),
  },
  {
    slug: "nested-lists",
    what: "lists nested five deep, ten items each (100,000 items in all)",
    html: doc(
      (() => {
        const level = (d: number, path: string): string =>
          d === 0
            ? ""
            : `<ul>${repeat(10, (i) => `<li><a href="/${path}${i}">Item ${path}${i}</a>${level(d - 1, `${path}${i}-`)}</li>`)}</ul>`;
        return level(4, "");
      })(),
    ),
  },
];
