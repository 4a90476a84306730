"use strict";
const T = {
  fr: { coup:"Coup", seat:"Place", vacant:"Libre", dealer:"Croupier", dealerLeft:"à gauche du croupier",
    cards:n => n + (n > 1 ? " cartes" : " carte"), ante:"Ante", raise:"Relance", bonus:"Bonus", jackpot:"Jackpot",
    purchase:"Achat", waiting:"En attente", fold:"Passe", raised:"Relance", payouts:"Paiements (ordre de paiement)",
    nopay:"Aucun paiement en cours", paid:"payée", toPay:"à payer", toCollect:"à ramasser", next:"suivante",
    paidRight:"payée ✓", unchecked:"non vérifié", short:"manque", over:"trop payé", notCollected:"mise à ramasser",
    offline:"Moteur injoignable", cameraMoved: (px, n) => `Caméra déplacée (${String(px).replace(".", ",")} px), recalibrée${n > 1 ? " ×" + n : ""}`,
    cameraOff:"Caméra hors ligne", cameraReading:"Bouton pris : la caméra finit de lire la table", shoeOff:"Sabot déconnecté", shoeOut:"Sabot absent", shoeNoisy:"Liaison du sabot bruitée", flooding:"Capteur emballé",
    rnvp:"Rien ne va plus", flag:"ALERTE", colon:" : ", seatFlag:"place", push:"égalité",
    returned:"rendu", handVoid:"Main nulle", qualifies:"qualifié", notQualifies:"non qualifié",
    toConfirm:"à confirmer", confirmTitle:"À confirmer", read:"lu", unread:"non lue", readAtLeast:"au moins", and:" ; ", shouldHold:"doit contenir", or:"ou",
    confirmTodo:"compter les jetons et saisir le montant", tapTodo:"compter les jetons : toucher le bon montant, ou le saisir", spreadTitle:"Étalez la mise", toFix:"à corriger", toSpread:"à étaler",
    spreadTodo:"faire étaler la pile par le joueur, la caméra la lira", earlierCoup:"coup précédent", ackTodo:"(lue : touche ack)", cardTodo:"lire la carte et la saisir",
    cardN:n => `carte ${n}`, more:n => `+${n} ${n > 1 ? "alertes" : "alerte"}`,
    moreTitle:"alertes les plus anciennes masquées faute de place (leurs places gardent le ⚠)",
    phases:{closed:"Table fermée", betting:"Faites vos jeux", dealing:"Donne", decisions:"Décisions",
            showdown:"Abattage", paying:"Paiements"} },
  en: { coup:"Coup", seat:"Seat", vacant:"Vacant", dealer:"Dealer", dealerLeft:"dealer's left",
    cards:n => n + (n === 1 ? " card" : " cards"), ante:"Ante", raise:"Raise", bonus:"Bonus", jackpot:"Jackpot",
    purchase:"Purchase", waiting:"Waiting", fold:"Fold", raised:"Raise", payouts:"Payouts (paying order)",
    nopay:"No payouts in progress", paid:"paid", toPay:"to pay", toCollect:"to collect", next:"next",
    paidRight:"paid ✓", unchecked:"not checked", short:"short", over:"overpaid", notCollected:"stake to collect",
    offline:"Engine unreachable", cameraMoved: (px, n) => `Camera moved (${px} px), recalibrated${n > 1 ? " ×" + n : ""}`,
    cameraOff:"Camera offline", cameraReading:"Button taken: the camera is finishing its reading", shoeOff:"Shoe disconnected", shoeOut:"Shoe removed", shoeNoisy:"Shoe link noisy", flooding:"Sensor flooding",
    rnvp:"No more bets", flag:"ALERT", colon:": ", seatFlag:"seat", push:"push",
    returned:"returned", handVoid:"Hand void", qualifies:"qualifies", notQualifies:"does not qualify",
    toConfirm:"to confirm", confirmTitle:"To confirm", read:"read", unread:"not read", readAtLeast:"at least", and:"; ", shouldHold:"should hold", or:"or",
    confirmTodo:"count the chips and key the amount", tapTodo:"count the chips: tap the right amount, or key it", spreadTitle:"Spread the bet", toFix:"to put right", toSpread:"to spread",
    spreadTodo:"have the player spread the stack for the camera to read", earlierCoup:"earlier coup", ackTodo:"(read: key ack)", cardTodo:"read the card and key it",
    cardN:n => `card ${n}`, more:n => `+${n} ${n === 1 ? "alert" : "alerts"}`,
    moreTitle:"oldest alerts hidden for want of room (their seats keep the ⚠)",
    phases:{closed:"Table closed", betting:"Place your bets", dealing:"Dealing", decisions:"Decisions",
            showdown:"Showdown", paying:"Paying"} },
};
const HANDS_EN = { "Carte haute":"High card", "Paire":"Pair", "Deux paires":"Two pair", "Brelan":"Three of a kind",
  "Quinte":"Straight", "Couleur":"Flush", "Full":"Full house", "Carré":"Four of a kind",
  "Quinte flush":"Straight flush", "Quinte royale":"Royal flush" };
// The zones in the order a seat's card lists them.
const ZONES = ["ante", "raise", "purchase", "bonus", "jackpot"];
const SUITS = { c:"♣", d:"♦", h:"♥", s:"♠" };
let lang = new URLSearchParams(location.search).get("lang") || localStorage.getItem("display-lang") || "fr";
let view = JSON.parse(document.getElementById("initial").textContent);

function money(cents) {
  const sign = cents < 0 ? "−" : (cents > 0 ? "+" : "");
  const abs = Math.abs(cents), units = Math.floor(abs / 100), rest = String(abs % 100).padStart(2, "0");
  return lang === "fr" ? `${sign}${units.toLocaleString("fr-FR")},${rest} €` : `${sign}€${units.toLocaleString("en-GB")}.${rest}`;
}
function cardText(card) { return card.replace("T", "10").replace(/[cdhs]$/, x => SUITS[x]); }
function plain(cents) { return money(cents).replace(/^[+−]/, ""); }
// On a seat's box, whole euros without their cents: « +160 € » holds at 32 px in a box a seventh of the screen.
function short(cents) { return money(cents).replace(/[,.]00(?= €|$)/, ""); }
function hand(name) { return lang === "fr" ? name : (HANDS_EN[name] || name); }
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function capital(text) { return text.replace(/^./, c => c.toUpperCase()); }
function flagLabel(f) { return lang === "fr" ? f.label_fr : capital(f.kind.replace(/_/g, " ")); }
function times(count) { return count > 1 ? ` ×${count}` : ""; }
function banner(cls, role, ...parts) { const b = el("div", "banner " + cls); b.setAttribute("role", role); b.append(...parts); return b; }

// The amounts a zone to confirm offers to tap, as the table takes them (controller/keypad.py's ``offered``).
function offered(c, phase) {
  return phase === "paying" ? [] : [...new Set([c.at_least ? 0 : c.amount, c.alternative || 0])].filter(a => a > 0);
}
// A tap: entered as the dealer's keypad line by the web server, once. A refusal stays on the button, its reason on hover.
function tap(button, seat, zone, amount) {
  if (button.dataset.sent) return;
  button.dataset.sent = "1"; button.disabled = true;
  const refused = detail => { delete button.dataset.sent; button.disabled = false; button.classList.add("failed"); button.title = detail; };
  fetch("/api/display/confirm", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ seat: Number(seat), box: zone, amount }) })
    .then(r => r.ok ? null : r.json().then(d => refused(d.detail), () => refused(r.statusText)))
    .catch(error => refused(String(error)));
}

function render() { draw(); makeRoom(); }

function draw() {
  const t = T[lang];
  document.documentElement.lang = lang;
  document.getElementById("lang").textContent = lang === "fr" ? "EN" : "FR";
  const link = document.getElementById("link");
  link.textContent = view.connected ? "" : "⚠ " + t.offline; link.className = view.connected ? "" : "status-off";
  const s = view.state;
  if (!s) { document.getElementById("phase").textContent = t.offline; return; }
  // Devices: said only when one is down (false); unknown (null, not reported yet) and fine say nothing.
  const devices = s.devices || {};
  const down = [[devices.camera_online, t.cameraOff], [devices.shoe_connected, t.shoeOff], [devices.shoe_present, t.shoeOut]];
  // A knocked camera was calibrated again by itself: said for the session, for the dealer to tell surveillance.
  const knocked = devices.camera_knocks ? [el("span", "status-warn", "⚠ " + t.cameraMoved(devices.camera_moved_px, devices.camera_knocks))] : [];
  // A noisy shoe link or a sensor sending too fast still works: amber, for the dealer to call a technician.
  const degraded = [...(devices.shoe_noisy ? [t.shoeNoisy] : []), ...(devices.flooding || []).map(kind => `${t.flooding} (${kind})`)]
    .map(text => el("span", "status-warn", "⚠ " + text));
  // A button pressed as the last card was laid: the table acts on it once the camera has read that card (a second).
  const reading = (s.awaiting_camera || []).length ? [el("span", "status-wait", "⏳ " + t.cameraReading)] : [];
  document.getElementById("devices").replaceChildren(
    ...down.filter(([up]) => up === false).map(([, text]) => el("span", "status-off", "⚠ " + text)), ...knocked, ...degraded,
    ...reading);
  // The latest refusal still standing (the referee drops one once its action goes through or the phase moves on).
  const refused = (s.refusals || []).at(-1);
  document.getElementById("refusal").replaceChildren(...(refused ? [banner("refused", "alert", el("span", "icon", "✖"),
    document.createTextNode(lang === "fr" ? `${capital(refused.action_fr)} : ${refused.reason_fr}`
      : `${capital(refused.kind.replace(/-/g, " "))} refused: ${refused.reason}`), el("span", "count", times(refused.count)))] : []));
  // Zones whose chips the camera could not vouch for: the game waits for the dealer's amount. One prompt a seat (the
  // place he walks to), each zone with what was read; amber, not the alerts' red: nothing is wrong yet.
  // Where the house spreads stacked bets, a stack the camera could not count is spread for it to read (not while
  // paying: the dealer then counts what he paid).
  const spreading = document.body.dataset.stackedBets === "spread" && s.phase !== "paying";
  const unsure = {}, toSpread = {};
  for (const c of s.to_confirm || []) ((spreading && c.stacked ? toSpread : unsure)[c.seat] ||= {})[c.box] = c;
  // Drawn again only when what it asks changes: a state comes several times a second, and a button replaced between
  // a finger's down and up would lose the tap.
  const confirmBox = document.getElementById("confirm");
  const asked = JSON.stringify([lang, s.phase, spreading, s.to_confirm || [], s.cards_to_confirm || [],
    s.phase === "paying" && s.settlement ? s.settlement.payouts : null]);
  if (confirmBox.dataset.asked !== asked) {
  confirmBox.dataset.asked = asked;
  confirmBox.replaceChildren(...Object.entries(unsure).map(([seat, zones]) => {
    // a pile too tall to count gives only a lower bound: « au moins 60,00 € », never « lu 60,00 € »
    // While paying, what the zone should hold once paid or collected: the figure the dealer checks his count against.
    const owed = zone => {
      const line = s.phase === "paying" && s.settlement
        && s.settlement.payouts.find(p => String(p.seat) === String(seat) && p.line === zone);
      return line ? `, ${t.shouldHold} ${plain(line.outcome === "lose" ? 0 : line.stake + Math.max(line.net, 0))}` : "";
    };
    const read = Object.entries(zones).sort(([a], [b]) => ZONES.indexOf(a) - ZONES.indexOf(b))
      .map(([zone, c]) => `${(t[zone] || zone).toLowerCase()} — ${c.at_least ? t.readAtLeast : t.read} ${plain(c.amount)}`
        + (c.alternative ? ` ${t.or} ${plain(c.alternative)}` : "") + owed(zone));
    // The amounts offered, one tap each (none while paying: he keys what he paid); the keypad for any other.
    const several = Object.keys(zones).length > 1;
    const taps = Object.entries(zones).sort(([a], [b]) => ZONES.indexOf(a) - ZONES.indexOf(b))
      .flatMap(([zone, c]) => offered(c, s.phase).map(amount => {
        const button = el("button", "tap", (several ? `${(t[zone] || zone).toLowerCase()} ` : "") + plain(amount));
        button.type = "button";
        button.dataset.box = zone; button.dataset.amount = amount;
        button.addEventListener("click", () => tap(button, seat, zone, amount));
        return button;
      }));
    const b = banner("confirm", "alert", el("span", "icon", "⌨"),
      el("span", "title", `${t.confirmTitle}${t.colon}${t.seatFlag} ${seat}, ${read.join(t.and)}`),
      document.createTextNode(" "), el("span", "todo", "→ " + (taps.length ? t.tapTodo : t.confirmTodo)),
      ...(taps.length ? [el("span", "taps")] : []));
    if (taps.length) b.querySelector(".taps").append(...taps);
    b.dataset.seat = seat;
    return b;
  }), ...Object.entries(toSpread).map(([seat, zones]) => {
    const names = Object.keys(zones).sort((a, b) => ZONES.indexOf(a) - ZONES.indexOf(b))
      .map(zone => (t[zone] || zone).toLowerCase());
    const b = banner("confirm spread", "alert", el("span", "icon", "↔"),
      el("span", "title", `${t.spreadTitle}${t.colon}${t.seatFlag} ${seat}, ${names.join(t.and)}`),
      document.createTextNode(" "), el("span", "todo", "→ " + t.spreadTodo));
    b.dataset.seat = seat;
    return b;
  }), ...(s.cards_to_confirm || []).map(c => {
    // A card the camera could not tell: the coup waits for the dealer to name it (never settled on a guess).
    const who = c.position === 0 ? t.dealer : `${t.seatFlag} ${c.position}`;
    const b = banner("confirm", "alert", el("span", "icon", "⌨"),
      el("span", "title", `${t.confirmTitle}${t.colon}${who}, ${t.cardN(c.index + 1)} — ${c.read ? `${t.read} ${cardText(c.read)} ?` : t.unread}`),
      document.createTextNode(" "), el("span", "todo", "→ " + t.cardTodo));
    b.dataset.position = c.position;
    return b;
  }));
  }
  document.getElementById("coup").textContent = `${t.coup} ${s.coup}`;
  document.getElementById("phase").textContent = t.phases[s.phase] || s.phase;
  const settlement = s.settlement;
  // Announcements: « Rien ne va plus » once the phase leaves the betting; then the settlement's own.
  const ann = document.getElementById("announcements"); ann.replaceChildren();
  const said = [];
  if (s.phase === "dealing") said.push(t.rnvp);
  if (settlement) said.push(...(lang === "fr" ? settlement.announced : settlement.announced_en));
  if (s.coup_void && !(settlement && settlement.void)) said.push(lang === "fr" ? "Coup nul" : "Coup void");
  for (const text of said) { const b = el("span", "banner announce", text); b.setAttribute("role", "status"); ann.append(b); }
  // Flags: colour and words, never colour alone; the same kind at the same seat is one banner, counted, with the
  // latest one's detail and what to do.
  const fl = document.getElementById("flags"); fl.replaceChildren();
  const flaggedSeats = new Set(), groups = new Map();
  // Earlier coups' alerts (the last coup's until this coup's first card, a void coup's until the dealer keys « ack »)
  // come first, marked as such, with the key that acknowledges them.
  const earlier = (s.closing_flags || []).map(f => ({...f, earlier: true}));
  for (const f of earlier.concat(s.flags || [])) {
    const key = `${f.earlier ? "earlier " : ""}${f.kind} ${f.seat}`;
    groups.set(key, {flag: f, count: (groups.has(key) ? groups.get(key).count : 0) + 1});
    if (f.seat && !f.held) flaggedSeats.add(String(f.seat));  // a void coup's alert stays, its seats' ⚠ does not
  }
  for (const {flag: f, count} of groups.values()) {
    const who = f.seat ? ` — ${t.seatFlag} ${f.seat}` : (f.seat === 0 ? ` — ${t.dealer}` : "");
    const detail = el("div", "detail", (lang === "fr" ? f.detail_fr : f.detail) + " ");
    detail.append(el("span", "todo", "→ " + (lang === "fr" ? f.instruction_fr : f.instruction_en)));
    if (f.earlier) detail.append(" ", el("span", "ack", t.ackTodo));
    const b = banner("flag " + f.severity + (f.earlier ? " earlier" : ""), "alert",
      ...(f.earlier ? [el("span", "tag past", t.earlierCoup)] : []),
      el("span", "title", `${t.flag}${t.colon}${flagLabel(f)}${who}`), el("span", "count", times(count)), detail);
    if (f.held) b.dataset.held = "1";
    fl.append(b);
  }
  // Seats 1 to 7 from the dealer's left.
  const seats = document.getElementById("seats"); seats.replaceChildren();
  const paidLines = {};
  if (settlement) for (const p of settlement.payouts) (paidLines[p.seat] = paidLines[p.seat] || []).push(p);
  const nextToPay = s.phase === "paying" ? (s.payments_due || [])[0] : undefined;
  for (let n = 1; n <= 7; n++) {
    const seat = s.seats[String(n)];
    const zones = unsure[n] || {}, spreads = toSpread[n] || {};
    // The zone's row stands out, « à confirmer » on it: the chips to count (« à étaler »: the stack to spread).
    const toCount = (row, zone) => {
      if (zone in zones) { row.classList.add("unsure"); row.prepend(el("span", "tag confirm", t.toConfirm)); }
      if (zone in spreads) { row.classList.add("unsure"); row.prepend(el("span", "tag confirm", t.toSpread)); }
      return row;
    };
    const box = el("section", "seat" + (seat && (seat.in_play || seat.occupied) ? "" : " vacant")
      + (flaggedSeats.has(String(n)) ? " flagged" : "") + (n === nextToPay ? " next" : ""));
    box.dataset.seat = n;
    box.append(el("h2", "", `${t.seat} ${n}`));
    if (flaggedSeats.has(String(n))) box.append(el("span", "tag", "⚠ " + t.flag));
    if (n === 1) box.append(el("div", "label left", "← " + t.dealerLeft));
    if (!seat || !(seat.occupied || seat.in_play)) { box.append(el("div", "label", t.vacant)); seats.append(box); continue; }
    if (settlement && paidLines[n]) {
      // Settled: the hand and each line's result say it all (the stakes are in the lines).
      // The hand, and where the box stands in the payment on the same row: to pay; once paid, as the camera judged
      // it (right, to put right, or not checked with the camera off); to collect; returned.
      const name = settlement.hands[String(n)];
      const owed = paidLines[n].some(p => p.outcome === "win");
      const lost = paidLines[n].some(p => p.net < 0);
      const check = (s.payments || {})[String(n)] || {};
      const paid = !check.checked ? "paid" : !check.watched ? "paidUnchecked"
        : (check.short || check.over || check.not_collected ? "toFix" : "paidRight");
      const standing = owed ? (s.phase === "paying" && (s.payments_due || []).includes(n) ? "toPay" : paid)
        : (lost ? "toCollect" : "returned");
      const row = el("div", "handline");
      if (name) row.append(el("span", "hand", hand(name)));
      row.append(el("span", "standing " + standing, {paid: t.paid, paidUnchecked: t.paid, paidRight: t.paidRight,
        toFix: t.toFix, toPay: t.toPay, toCollect: t.toCollect, returned: t.returned}[standing]));
      box.append(row);
      if (seat.hand_void) box.append(el("div", "decision lose", t.handVoid));
      for (const p of paidLines[n]) {
        const row = el("div", "bet result " + (p.net > 0 ? "win" : (p.net < 0 ? "lose" : "")));
        // The sign says won or lost; a line that neither wins nor loses says which instead of « 0,00 € ».
        // A zone in doubt shows no figure: the banner says what was read and what it should hold.
        const figure = p.line in zones ? "" : (p.net ? short(p.net) : (t[p.outcome] || p.outcome));
        row.append(el("span", "line", t[p.line] || p.line), el("span", "figure", figure));
        box.append(toCount(row, p.line));
      }
      // A zone read unsure that no line settles still says which chips to count, with what was read.
      for (const [zone, c] of Object.entries(zones)) {
        if (paidLines[n].some(p => p.line === zone)) continue;
        const row = el("div", "bet"); row.append(el("span", "label", t[zone] || zone), el("span", "", plain(c.amount)));
        box.append(toCount(row, zone));
      }
      seats.append(box); continue;
    }
    const bets = Object.assign({}, seat.fixed_bets || {}, seat.bets || {});
    if (seat.raise) bets.raise = seat.raise;
    for (const key of ZONES) {
      // A raise read unsure is not taken yet: the row shows what was read.
      const cents = bets[key] || (zones[key] || spreads[key] || {}).amount;
      if (!cents) continue;
      const row = el("div", "bet"); row.append(el("span", "label", t[key]), el("span", "", plain(cents)));
      box.append(toCount(row, key));
    }
    box.append(el("div", "", t.cards(seat.card_count || 0)));
    const decision = seat.decision === "fold" ? t.fold : (seat.decision === "raise" ? t.raised : (s.phase === "decisions" && seat.in_play ? t.waiting : ""));
    if (decision) box.append(el("div", "decision", decision));
    if (seat.hand_void) box.append(el("div", "decision lose", t.handVoid));
    seats.append(box);
  }
  // The dealer's place.
  const d = document.getElementById("dealer"); d.replaceChildren(el("h2", "", t.dealer));
  const dealer = s.dealer || {cards: [], card_count: 0};
  d.append(el("div", "", t.cards(dealer.card_count || 0)));
  d.append(el("div", "cards", (dealer.cards || []).map(c => c ? cardText(c) : "▮").join(" ")));
  if (settlement && settlement.dealer_hand) {
    d.append(el("div", "hand", `${hand(settlement.dealer_hand)} — ${settlement.dealer_qualifies ? t.qualifies : t.notQualifies}`));
  }
  // Payouts in paying order (counter-clockwise from the dealer's right): per box what to pay and what to collect,
  // in figures read from 2 m; the next box to pay stands out, a paid one is crossed off with the camera's verdict.
  const p = document.getElementById("payouts"); p.replaceChildren(el("h2", "", t.payouts));
  if (!settlement) { p.append(el("div", "label", t.nopay)); return; }
  const due = new Set(s.payments_due || []);
  const paying = s.phase === "paying";
  const checks = paying ? s.payments || {} : {};
  const rows = [], tall = [];
  for (const seatNo of settlement.paying_order) {
    const lines = paidLines[seatNo] || [];
    const pay = lines.reduce((a, l) => a + Math.max(l.net, 0), 0);
    const collect = lines.reduce((a, l) => a - Math.min(l.net, 0), 0);
    const owed = lines.some(l => l.outcome === "win");  // the table's own rule: seats owed a payment
    const isPaid = owed && paying && !due.has(seatNo);
    const check = checks[String(seatNo)];
    const checked = Boolean(check && check.checked);
    // Once « paiement terminé » is pressed the camera's verdict is final; before, short is only what is still to pay
    // and stakes still on the felt are still to collect: only chips beyond what the box is owed are a fault yet.
    const faults = !check || (checked && !check.watched) ? []
      : (checked ? [[t.short, check.short], [t.over, check.over], [t.notCollected, check.not_collected]]
        : [[t.over, check.over]]).filter(([, cents]) => cents > 0);
    const wrong = checked && faults.length > 0;
    // A zone of the box read unsure: « paiement terminé » waits for the dealer's amount, and the state says so.
    const toConfirm = paying && seatNo in unsure;
    const li = el("li", [isPaid || checked ? "paid" : "", seatNo === nextToPay ? "next" : "", checked ? "checked" : "",
      wrong ? "wrong" : "", toConfirm ? "unsure" : ""].filter(Boolean).join(" "));
    li.dataset.seat = seatNo;
    li.append(el("span", "who", `${t.seat} ${seatNo}`));
    // A wrong payment shows only what to put right: the amounts settled are no use then.
    if (!wrong) {
      li.append(el("span", "figure pay", pay ? plain(pay) : "—"), el("span", "figure collect", collect ? plain(collect) : "—"));
    }
    if (toConfirm) {
      li.append(el("span", "state confirm", t.toConfirm));
    } else if (checked && !wrong) {
      li.append(check.watched ? el("span", "state verdict right", t.paidRight)
        : el("span", "state verdict unchecked", t.unchecked));
    } else if (!checked) {
      const state = el("span", "state", isPaid ? "✓" : (seatNo === nextToPay ? "▶" : ""));
      state.title = isPaid ? t.paid : (seatNo === nextToPay ? t.next : "");
      li.append(state);
    }
    li.append(...faults.map(([label, cents]) => el("span", "verdict fault", `${label} ${plain(cents)}`)));
    rows.push(li);
    // The lines the box takes: a fault below the figures, or all but the first beside « Place n » once checked.
    tall.push(1 + (wrong ? faults.length - 1 + (toConfirm ? 1 : 0) : faults.length));
  }
  // Four boxes a column at most: seven of them, in figures read from 2 m, fit under the seats. Boxes with faults
  // take more lines: then the split is where the taller column is the shortest.
  const height = (from, to) => tall.slice(from, to).reduce((a, n) => a + n, 0);
  let split = Math.min(rows.length, 4);
  if (height(0, split) > 4) {
    for (let k = split - 1; k >= Math.max(1, rows.length - 4); k--) {
      if (Math.max(height(0, k), height(k)) < Math.max(height(0, split), height(split))) split = k;
    }
  }
  const columns = el("div", "columns");
  for (const [from, to] of [[0, split], [split, rows.length]]) {
    if (from >= to) continue;
    const head = el("div", "head");
    head.append(el("span", "who"), el("span", "pay", t.toPay), el("span", "collect", t.toCollect), el("span", "state"));
    const list = el("ol"); list.append(...rows.slice(from, to));
    const column = el("div", "column"); column.append(head, list); columns.append(column);
  }
  p.append(columns);
}
// The seats never give way: where they run out of room (prompts to confirm on top of many alerts, a small screen), the
// oldest alerts give theirs, and the header counts those out of sight (their seats keep the ⚠ tag). The prompts and
// the refusal hold the game up: they stay.
function makeRoom() {
  const more = document.getElementById("more"); more.replaceChildren();
  // a void coup's alerts, held until the dealer acknowledges them, are the last to give way
  const all = [...document.getElementById("flags").children];
  const flags = [...all.filter(f => !f.dataset.held), ...all.filter(f => f.dataset.held)];
  const seats = document.getElementById("seats");
  const fits = () => {
    const bottom = seats.getBoundingClientRect().bottom + 1;
    return [...seats.children].every(b => b.scrollHeight <= b.clientHeight + 1 && b.getBoundingClientRect().bottom <= bottom
      && [...b.querySelectorAll(".bet")].every(row => row.scrollWidth <= row.clientWidth + 1));
  };
  // The seats' results are read from 2 m, at 32 px or more, with where each box stands in the payment; where a box
  // has no room for them so (a small screen, many alerts), they come down to the seats' own size and the standing
  // is left to the paying panel, before any alert gives way.
  seats.classList.remove("compact");
  if (!fits()) {
    seats.classList.add("compact");
    seats.querySelectorAll(".standing").forEach(e => e.remove());  // the paying panel below says it too
  }
  let hidden = 0;
  while (hidden < flags.length && !fits()) {
    flags[hidden++].remove();
    const note = el("span", "more", "⚠ " + T[lang].more(hidden)); note.title = T[lang].moreTitle;
    more.replaceChildren(note);
  }
  // No room even without them: hiding them would only lose them.
  if (hidden && !fits()) { document.getElementById("flags").replaceChildren(...all); more.replaceChildren(); }
}
addEventListener("resize", render);
document.getElementById("lang").addEventListener("click", () => {
  lang = lang === "fr" ? "en" : "fr"; localStorage.setItem("display-lang", lang); render();
});
render();
const source = new EventSource("/api/stream");
source.addEventListener("state", e => { view = JSON.parse(e.data); render(); });
source.onerror = () => { view.connected = false; render(); };
