import { isClassName, isStableClass } from "./selectors.js";
import type { PageNode, PageTree } from "./page-tree.js";

/**
 * Finding a page's repeated records without a model: sibling elements of like structure, grouped
 * by tag and class, scored by how much of the page's text they hold, how many distinct things each
 * says, and where they sit (navigation, menus, footers and sidebars count for little). Decision 0039.
 */
export interface RecordGroup {
  readonly members: ReadonlyArray<PageNode>;
  readonly score: number;
  /** One sentence on what was found, for the suggestion's `why`. */
  readonly description: string;
}

/** Elements that never hold records, nor are one. */
const inert = new Set([
  "#document",
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "path",
  "br",
  "hr",
  "meta",
  "link",
  "option",
  "optgroup",
  "select",
  "iframe",
  "input",
  "button",
  "wbr",
  "source",
  "track",
  "col",
  "colgroup",
]);

const boilerplateTags = new Set(["nav", "header", "footer", "aside", "menu"]);
const boilerplateRoles = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "menu",
  "menubar",
  "toolbar",
  "search",
]);
const boilerplateWords =
  /(?:^|[-_\s])(?:nav|navbar|navigation|menu|menus|footer|header|sidebar|side-bar|breadcrumbs?|pagination|pager|pages|tags?|tagcloud|cloud|social|share|sharing|widget|dropdown|toolbar|topbar|masthead|categories|filters?|facets?|refinements?|language|languages|locale|cookie|banner|ads?|advert|sponsored|promo)(?:$|[-_\s])/i;
const mainWords =
  /(?:^|[-_\s])(?:main|content|results?|search-results|list|listing|items|products|posts|articles|entries|stories|feed|threads|topics)(?:$|[-_\s])/i;

/**
 * Why the nodes' common surroundings look like navigation or a frame, or null. Names (ids and
 * classes) count only close by: a "header" far up is often a wrapper around the whole page.
 */
const boilerplateOf = (node: PageNode): string | null => {
  let level = 0;
  for (let p: PageNode | null = node; p !== null; p = p.parent, level++) {
    if (boilerplateTags.has(p.tag)) return `inside <${p.tag}>`;
    const role = p.attributes.role;
    if (role !== undefined && boilerplateRoles.has(role)) return `inside role=${role}`;
    const words = `${p.attributes.id ?? ""} ${p.classes.join(" ")}`;
    if (level < 5 && boilerplateWords.test(words))
      return `inside ${p.attributes.id ? `#${p.attributes.id}` : `.${p.classes.join(".")}`}`;
  }
  return null;
};

const inMain = (node: PageNode): boolean => {
  for (let p: PageNode | null = node; p !== null; p = p.parent) {
    if (p.tag === "main" || p.attributes.role === "main") return true;
    if (mainWords.test(`${p.attributes.id ?? ""} ${p.classes.join(" ")}`)) return true;
  }
  return false;
};

const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** The things a record says: links, images and elements with text of their own (at most 12 counted). */
const thingsSaid = (tree: PageTree, record: PageNode): number => {
  let count = 0;
  const stack = [...record.children];
  while (stack.length > 0 && count < 12) {
    const node = stack.pop()!;
    if (inert.has(node.tag)) continue;
    const ownText = node.content.some((c) => typeof c === "string" && c.trim() !== "");
    if (ownText || node.tag === "img" || (node.tag === "a" && node.attributes.href)) count++;
    stack.push(...node.children);
  }
  if (count === 0 && tree.hasText(record)) count = 1;
  return count;
};

/** The share of a record's text inside links. */
const linkShare = (tree: PageTree, record: PageNode): number => {
  const total = tree.text(record).length;
  if (total === 0 || record.tag === "a") return 1;
  let linked = 0;
  const stack = [...record.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.tag === "a") linked += tree.text(node).length;
    else stack.push(...node.children);
  }
  return Math.min(1, linked / total);
};

const headings = new Set(["a", "h1", "h2", "h3", "h4", "h5", "h6"]);

/** The longest link or heading text in a record: most records are named by one (a title), their metadata is not. */
const headlineLength = (tree: PageTree, record: PageNode): number => {
  if (headings.has(record.tag)) return tree.visibleLength(record);
  let longest = 0;
  const stack = [...record.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (headings.has(node.tag)) longest = Math.max(longest, tree.visibleLength(node));
    stack.push(...node.children);
  }
  return longest;
};

/** Tags whose repeats are a record's own parts (cells, words), never a list inside it. */
const partTags = new Set([
  "td",
  "th",
  "span",
  "a",
  "b",
  "i",
  "em",
  "strong",
  "img",
  "p",
  "br",
  "small",
  "font",
  "code",
]);

/**
 * Does the record hold a list of its own that is most of it (a table's rows, a column of cards)?
 * A list here is three or more children alike in tag and first class, each with parts of its own.
 */
const isContainer = (tree: PageTree, record: PageNode): boolean => {
  const total = tree.visibleLength(record);
  const stack = [record];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const lists = new Map<string, { count: number; length: number }>();
    for (const child of node.children) {
      if (inert.has(child.tag) || partTags.has(child.tag) || child.children.length === 0) continue;
      const key = `${child.tag}.${child.classes[0] ?? ""}`;
      const list = lists.get(key) ?? { count: 0, length: 0 };
      list.count++;
      list.length += tree.visibleLength(child);
      lists.set(key, list);
    }
    for (const { count, length } of lists.values()) if (count >= 3 && length >= 0.6 * total) return true;
    stack.push(...node.children);
  }
  return false;
};

/** A table's header row, or a spacer: not a record. */
const isRecordLike = (tree: PageTree, node: PageNode): boolean => {
  if (node.tag === "tr") return node.children.some((c) => c.tag === "td");
  return tree.hasText(node) || node.children.some((c) => c.tag === "img" || c.tag === "a");
};

/**
 * What a child of a list really is: the element inside it that holds all of it, when it is wrapped
 * (`<div><div class="result">…</div></div>`), so wrappers group by what they wrap.
 */
const core = (tree: PageTree, node: PageNode): PageNode => {
  let current = node;
  for (;;) {
    const kids = current.children.filter((c) => !inert.has(c.tag));
    if (kids.length !== 1 || tree.visibleLength(kids[0]!) !== tree.visibleLength(current) || kids[0]!.tag === "a")
      return current;
    current = kids[0]!;
  }
};

/**
 * The share of members shaped like most of them (the tags of their children): records are alike,
 * whatever classes alternate on them (odd and even rows).
 */
const uniformity = (members: ReadonlyArray<PageNode>): number => {
  const counts = new Map<string, number>();
  for (const m of members) {
    const key = m.children.map((c) => c.tag).join(",");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Math.max(...counts.values()) / members.length;
};

/** How many classes may split one list into groups: far more than a listing's kinds of item (ads, featured, odd and even). */
const maxClassSplits = 32;

/** The groups of like siblings: per parent and tag, and per class shared by at least three of them. */
const siblingGroups = (tree: PageTree): Map<string, PageNode[]> => {
  const groups = new Map<string, PageNode[]>();
  const add = (key: string, nodes: PageNode[]) => {
    const list = groups.get(key);
    if (list) list.push(...nodes);
    else groups.set(key, [...nodes]);
  };
  for (const parent of tree.nodes) {
    // Two siblings count: lists split in parts (a table per kind of thing) are joined by their parent's kind.
    if (inert.has(parent.tag) || parent.children.length < 2) continue;
    const byTag = new Map<string, PageNode[]>();
    // Each member keeps the wrapper it came in: its classes may be what tells records from ads.
    const wrapperOf = new Map<PageNode, PageNode>();
    for (const child of parent.children) {
      if (inert.has(child.tag)) continue;
      const inner = core(tree, child);
      wrapperOf.set(inner, child);
      const list = byTag.get(inner.tag);
      if (list) list.push(inner);
      else byTag.set(inner.tag, [inner]);
    }
    // Siblings under parents alike (a grid's rows, say) are one group: keyed by the parent's kind.
    let parentKey = "";
    for (const [tag, nodes] of byTag) {
      const records = nodes.filter((n) => isRecordLike(tree, n));
      if (records.length < 2) continue;
      parentKey ||= `${parent.parent?.tag}>${parent.tag}.${parent.classes.filter(isStableClass).sort().join(".")}`;
      add(`${parentKey}>${tag}`, records);
      // Rows alike in tag but not in what they hold (a story's title row and its subtext row).
      const shapes = new Map<string, PageNode[]>();
      for (const node of records) {
        const shape = node.children.map((c) => `${c.tag}.${c.classes.find(isStableClass) ?? ""}`).join(",");
        const list = shapes.get(shape);
        if (list) list.push(node);
        else shapes.set(shape, [node]);
      }
      if (shapes.size > 1)
        for (const [shape, nodes] of shapes) if (nodes.length >= 3) add(`${parentKey}>${tag}(${shape})`, nodes);
      // Any class may split a group (a build tool's too): whether it can select the records is the selector's call.
      // Indexed by class in one pass: filtering the records once per class was quadratic on long class lists.
      const byClass = new Map<string, PageNode[]>();
      for (const node of records) {
        const wrapper = wrapperOf.get(node);
        for (const c of [
          ...node.classes,
          ...(wrapper && wrapper !== node ? wrapper.classes.map((c) => `^${c}`) : []),
        ]) {
          if (!isClassName(c.replace(/^\^/, ""))) continue;
          const list = byClass.get(c);
          if (list) list.push(node);
          else byClass.set(c, [node]);
        }
      }
      const splits = [...byClass].filter(([, members]) => members.length >= 2 && members.length < records.length);
      // The most shared first, and only so many: classes by the thousand (one per few records) would make a group each.
      if (splits.length > maxClassSplits) splits.sort((a, b) => b[1].length - a[1].length).length = maxClassSplits;
      for (const [c, members] of splits) add(`${parentKey}>${tag}.${c}`, members);
    }
  }
  return groups;
};

/** Candidate record groups of the page, best first. */
export const recordGroups = (tree: PageTree): RecordGroup[] => {
  const body = tree.byTag.get("body")?.[0] ?? tree.root;
  const pageText = Math.max(1, tree.visibleLength(body));
  const scored: RecordGroup[] = [];
  const seenSets = new Set<string>();
  for (const members of siblingGroups(tree).values()) {
    if (members.length < 3) continue;
    members.sort((a, b) => a.order - b.order);
    const setKey = members.map((m) => m.order).join(",");
    if (seenSets.has(setKey)) continue;
    seenSets.add(setKey);
    const lengths = members.map((m) => tree.visibleLength(m));
    const typical = median(lengths);
    if (typical < 2) continue;
    // The text the group holds, counted as if every record were typical: a group whose text is one
    // member's (a page's header, main and footer) counts for little.
    const share = Math.min(1, (typical * members.length) / pageText);
    // A few words in a corner of the page (a form's labels) are not what anyone collects.
    if (share < 0.02) continue;
    const slots = median(members.map((m) => thingsSaid(tree, m)));
    const links = median(members.map((m) => linkShare(tree, m)));
    const frame = boilerplateOf(members[0]!);
    const headline = median(members.map((m) => headlineLength(tree, m)));
    let score =
      share *
      Math.sqrt(Math.min(slots, 8)) *
      Math.log2(1 + members.length) *
      uniformity(members) ** 2 *
      (1 + 0.5 * Math.min(1, headline / 40));
    // A lone link per record with little text is a menu's shape.
    if (slots <= 1 && links > 0.9) score *= 0.3;
    if (frame !== null) score *= 0.25;
    // Lists of lists: the inner list holds the records.
    if (members.filter((m) => isContainer(tree, m)).length > members.length / 2) score *= 0.3;
    if (inMain(members[0]!)) score *= 1.3;
    const kind = members[0]!.tag === "tr" ? "table rows" : `<${members[0]!.tag}> elements`;
    scored.push({
      members,
      score,
      description:
        `${members.length} ${kind} alike, holding ${Math.round(share * 100)}% of the page's text, ` +
        `${slots} ${slots === 1 ? "thing" : "things"} each${frame ? ` (${frame})` : ""}`,
    });
  }
  return scored.sort((a, b) => b.score - a.score);
};
