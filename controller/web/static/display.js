"use strict";
const T = {
  fr: { coup:"Coup", seat:"Place", vacant:"Libre", dealer:"Croupier", dealerLeft:"à gauche du croupier",
    cards:n => n + (n > 1 ? " cartes" : " carte"), ante:"Ante", raise:"Relance", bonus:"Bonus", jackpot:"Jackpot",
    purchase:"Achat", waiting:"En attente", fold:"Passe", raised:"Relance", payouts:"Paiements (ordre de paiement)",
    nopay:"Aucun paiement en cours", paid:"payé ✓", nothing:"rien à payer", due:"à payer", next:"▶ à payer", offline:"Moteur injoignable",
    rnvp:"Rien ne va plus", flag:"ALERTE", colon:" : ", seatFlag:"place", win:"gagne", lose:"perd", push:"égalité",
    returned:"rendu", handVoid:"Main nulle", qualifies:"qualifié", notQualifies:"non qualifié",
    phases:{closed:"Table fermée", betting:"Faites vos jeux", dealing:"Donne", decisions:"Décisions",
            showdown:"Abattage", paying:"Paiements"} },
  en: { coup:"Coup", seat:"Seat", vacant:"Vacant", dealer:"Dealer", dealerLeft:"dealer's left",
    cards:n => n + (n === 1 ? " card" : " cards"), ante:"Ante", raise:"Raise", bonus:"Bonus", jackpot:"Jackpot",
    purchase:"Purchase", waiting:"Waiting", fold:"Fold", raised:"Raise", payouts:"Payouts (paying order)",
    nopay:"No payouts in progress", paid:"paid ✓", nothing:"nothing to pay", due:"to pay", next:"▶ to pay", offline:"Engine unreachable",
    rnvp:"No more bets", flag:"ALERT", colon:": ", seatFlag:"seat", win:"wins", lose:"loses", push:"push",
    returned:"returned", handVoid:"Hand void", qualifies:"qualifies", notQualifies:"does not qualify",
    phases:{closed:"Table closed", betting:"Place your bets", dealing:"Dealing", decisions:"Decisions",
            showdown:"Showdown", paying:"Paying"} },
};
const HANDS_EN = { "Carte haute":"High card", "Paire":"Pair", "Deux paires":"Two pair", "Brelan":"Three of a kind",
  "Quinte":"Straight", "Couleur":"Flush", "Full":"Full house", "Carré":"Four of a kind",
  "Quinte flush":"Straight flush", "Quinte royale":"Royal flush" };
const SUITS = { c:"♣", d:"♦", h:"♥", s:"♠" };
let lang = new URLSearchParams(location.search).get("lang") || localStorage.getItem("display-lang") || "fr";
let view = JSON.parse(document.getElementById("initial").textContent);

function money(cents) {
  const sign = cents < 0 ? "−" : (cents > 0 ? "+" : "");
  const abs = Math.abs(cents), units = Math.floor(abs / 100), rest = String(abs % 100).padStart(2, "0");
  return lang === "fr" ? `${sign}${units.toLocaleString("fr-FR")},${rest} €` : `${sign}€${units.toLocaleString("en-GB")}.${rest}`;
}
function plain(cents) { return money(cents).replace(/^[+−]/, ""); }
function hand(name) { return lang === "fr" ? name : (HANDS_EN[name] || name); }
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function flagLabel(f) { return lang === "fr" ? f.label_fr : f.kind.replace(/_/g, " ").replace(/^./, c => c.toUpperCase()); }

function render() {
  const t = T[lang];
  document.documentElement.lang = lang;
  document.getElementById("lang").textContent = lang === "fr" ? "EN" : "FR";
  const link = document.getElementById("link");
  link.textContent = view.connected ? "" : "⚠ " + t.offline; link.className = view.connected ? "" : "status-off";
  const s = view.state;
  if (!s) { document.getElementById("phase").textContent = t.offline; return; }
  document.getElementById("coup").textContent = `${t.coup} ${s.coup}`;
  document.getElementById("phase").textContent = t.phases[s.phase] || s.phase;
  const settlement = s.settlement;
  // Announcements: « Rien ne va plus » once the phase leaves the betting; then the settlement's own.
  const ann = document.getElementById("announcements"); ann.replaceChildren();
  const said = [];
  if (s.phase === "dealing") said.push(t.rnvp);
  if (settlement) said.push(...(lang === "fr" ? settlement.announced : settlement.announced_en));
  if (s.coup_void && !(settlement && settlement.void)) said.push(lang === "fr" ? "Coup nul" : "Coup void");
  for (const text of said) { const b = el("div", "banner announce", text); b.setAttribute("role", "status"); ann.append(b); }
  // Flags: colour and words, never colour alone.
  const fl = document.getElementById("flags"); fl.replaceChildren();
  const flaggedSeats = new Set();
  for (const f of s.flags || []) {
    const b = el("div", "banner flag " + f.severity); b.setAttribute("role", "alert");
    b.append(el("span", "icon", "⚠"), document.createTextNode(`${t.flag}${t.colon}${flagLabel(f)}`
      + (f.seat ? ` — ${t.seatFlag} ${f.seat}` : (f.seat === 0 ? ` — ${t.dealer}` : ""))));
    fl.append(b); if (f.seat) flaggedSeats.add(String(f.seat));
  }
  // Seats 1 to 7 from the dealer's left.
  const seats = document.getElementById("seats"); seats.replaceChildren();
  const paidLines = {};
  if (settlement) for (const p of settlement.payouts) (paidLines[p.seat] = paidLines[p.seat] || []).push(p);
  for (let n = 1; n <= 7; n++) {
    const seat = s.seats[String(n)];
    const box = el("section", "seat" + (seat && (seat.in_play || seat.occupied) ? "" : " vacant") + (flaggedSeats.has(String(n)) ? " flagged" : ""));
    box.dataset.seat = n;
    box.append(el("h2", "", `${t.seat} ${n}`));
    if (flaggedSeats.has(String(n))) box.append(el("span", "tag", "⚠ " + t.flag));
    if (n === 1) box.append(el("div", "label", "← " + t.dealerLeft));
    if (!seat || !(seat.occupied || seat.in_play)) { box.append(el("div", "label", t.vacant)); seats.append(box); continue; }
    const bets = Object.assign({}, seat.fixed_bets || {}, seat.bets || {});
    if (seat.raise) bets.raise = seat.raise;
    for (const key of ["ante", "raise", "purchase", "bonus", "jackpot"]) {
      if (!bets[key]) continue;
      const row = el("div", "bet"); row.append(el("span", "label", t[key]), el("span", "", plain(bets[key]))); box.append(row);
    }
    box.append(el("div", "", t.cards(seat.card_count || 0)));
    const decision = seat.decision === "fold" ? t.fold : (seat.decision === "raise" ? t.raised : (s.phase === "decisions" && seat.in_play ? t.waiting : ""));
    if (decision) box.append(el("div", "decision", decision));
    if (seat.hand_void) box.append(el("div", "decision lose", t.handVoid));
    if (settlement) {
      const name = settlement.hands[String(n)];
      if (name) box.append(el("div", "hand", hand(name)));
      for (const p of paidLines[n] || []) {
        const row = el("div", "bet result " + (p.net > 0 ? "win" : (p.net < 0 ? "lose" : "")));
        row.append(el("span", "", `${t[p.line] || p.line} ${t[p.outcome] || p.outcome}`), el("span", "", money(p.net)));
        box.append(row);
      }
    }
    seats.append(box);
  }
  // The dealer's place.
  const d = document.getElementById("dealer"); d.replaceChildren(el("h2", "", t.dealer));
  const dealer = s.dealer || {cards: [], card_count: 0};
  d.append(el("div", "", t.cards(dealer.card_count || 0)));
  d.append(el("div", "cards", (dealer.cards || []).map(c => c ? c.replace("T", "10").replace(/[cdhs]$/, x => SUITS[x]) : "▮").join(" ")));
  if (settlement && settlement.dealer_hand) {
    d.append(el("div", "hand", `${hand(settlement.dealer_hand)} — ${settlement.dealer_qualifies ? t.qualifies : t.notQualifies}`));
  }
  // Payouts in paying order (counter-clockwise from the dealer's right), crossed off when paid.
  const p = document.getElementById("payouts"); p.replaceChildren(el("h2", "", t.payouts));
  if (!settlement) { p.append(el("div", "label", t.nopay)); return; }
  const due = new Set(s.payments_due || []);
  const paying = s.phase === "paying";
  const list = el("ol"); let first = true;
  for (const seatNo of settlement.paying_order) {
    const lines = paidLines[seatNo] || [];
    const net = lines.reduce((a, l) => a + l.net, 0);
    const owed = lines.some(l => l.outcome === "win");  // the table's own rule: seats owed a payment
    const isPaid = owed && paying && !due.has(seatNo);
    const li = el("li", isPaid ? "paid" : (owed ? "" : "nothing")); li.dataset.seat = seatNo;
    const state = !owed ? t.nothing : (isPaid ? t.paid : (first && paying ? t.next : t.due));
    if (owed && !isPaid) first = false;
    li.append(el("span", "who", `${t.seat} ${seatNo}`),
      el("span", "lines", lines.map(l => `${t[l.line] || l.line} ${money(l.net)}`).join(" · ")),
      el("span", "net " + (net > 0 ? "win" : net < 0 ? "lose" : ""), money(net)), el("span", "state", state));
    list.append(li);
  }
  p.append(list);
}
document.getElementById("lang").addEventListener("click", () => {
  lang = lang === "fr" ? "en" : "fr"; localStorage.setItem("display-lang", lang); render();
});
render();
const source = new EventSource("/api/stream");
source.addEventListener("state", e => { view = JSON.parse(e.data); render(); });
source.onerror = () => { view.connected = false; render(); };
