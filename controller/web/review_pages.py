# ruff: noqa: E501
"""The surveillance review's pages (Jinja2, autoescaped)."""

TEMPLATES = {
    "base.html": """<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>{% block title %}Revue{% endblock %} — table {{ table_id }}</title>
<style>
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 1em 2em; font-size: 17px; color:#111; }
nav { display:flex; gap:1.5em; align-items:center; border-bottom:2px solid #333; padding-bottom:.4em; margin-bottom:1em; }
nav .me { margin-left:auto; }
table { border-collapse: collapse; margin: .5em 0 1.2em 0; }
th, td { border: 1px solid #999; padding: .25em .6em; text-align:left; vertical-align:top; }
th { background:#e8e8e8; }
.flag { background:#ffe0e0; border-left:6px solid #c8102e; padding:.4em .8em; margin:.4em 0; }
.flag.acked { background:#e6f4e6; border-left-color:#2a7a2a; }
.error { color:#fff; background:#c8102e; padding:.4em .8em; }
code { font-size: 14px; }
form.inline { display:inline; }
</style></head><body>
<nav><b>Table {{ table_id }} — revue</b>
{% if user %}<a href="/review">Coups</a>{% if user.can('supervisor') %} <a href="/review/audit">Journal d'audit</a>{% endif %}{% if user.can('admin') %} <a href="/review/admin">Utilisateurs</a>{% endif %}
<span class="me">{{ user.username }} ({{ user.role }})
<form class="inline" method="post" action="/review/logout"><button>Se déconnecter</button></form></span>{% endif %}
</nav>
{% block body %}{% endblock %}
</body></html>""",
    "login.html": """{% extends "base.html" %}{% block title %}Connexion{% endblock %}{% block body %}
<h1>Connexion</h1>
{% if error %}<p class="error" role="alert">{{ error }}</p>{% endif %}
<form method="post" action="/review/login">
<p><label>Utilisateur <input name="username" autocomplete="username" required></label></p>
<p><label>Mot de passe <input name="password" type="password" autocomplete="current-password" required></label></p>
<p><button type="submit">Se connecter</button></p>
</form>{% endblock %}""",
    "coups.html": """{% extends "base.html" %}{% block title %}Coups{% endblock %}{% block body %}
<h1>Coups</h1>
<form method="get" action="/review">
<label>Table <select name="table"><option value="">toutes</option>{% for t in tables %}
<option value="{{ t }}" {% if q.table == t %}selected{% endif %}>{{ t }}</option>{% endfor %}</select></label>
<label>Du <input type="date" name="date_from" value="{{ q.date_from or '' }}"></label>
<label>au <input type="date" name="date_to" value="{{ q.date_to or '' }}"></label>
<label>Alerte <select name="kind"><option value="">toutes</option>{% for k in kinds %}
<option value="{{ k }}" {% if q.kind == k %}selected{% endif %}>{{ k }}</option>{% endfor %}</select></label>
<label>Place <input type="number" name="seat" min="0" max="7" value="{{ q.seat or '' }}" style="width:4em"></label>
<label>Acquittées <select name="acknowledged"><option value="">toutes</option>
<option value="no" {% if q.acknowledged == 'no' %}selected{% endif %}>à acquitter</option>
<option value="yes" {% if q.acknowledged == 'yes' %}selected{% endif %}>acquittées</option></select></label>
<button type="submit">Filtrer</button></form>
<table id="coups"><tr><th>Table</th><th>Coup</th><th>Début (UTC)</th><th>État</th><th>Alertes</th><th>À acquitter</th><th>Résultat banque</th></tr>
{% for c in coups %}<tr><td>{{ c.table_id }}</td><td><a href="/review/coups/{{ c.number }}">Coup {{ c.number }}</a></td><td>{{ c.at }}</td>
<td>{% if c.void %}nul{% elif c.settled %}réglé{% else %}en cours{% endif %}</td>
<td>{{ c.flags | join(', ') }}</td><td>{{ c.flags_pending }}</td>
<td>{% if c.house_net is not none %}{{ euros(c.house_net) }}{% endif %}</td></tr>
{% else %}<tr><td colspan="7">Aucun coup.</td></tr>{% endfor %}</table>{% endblock %}""",
    "coup.html": """{% extends "base.html" %}{% block title %}Coup {{ coup.number }}{% endblock %}{% block body %}
<h1>Coup {{ coup.number }} — table {{ coup.table_id }}</h1>
<p>Début : {{ coup.at }} (UTC) — {% if coup.void %}coup nul{% elif coup.settled %}réglé{% else %}en cours{% endif %}
{% if user.can('supervisor') %} — <a href="/review/coups/{{ coup.number }}/report">Exporter le rapport signé</a>{% endif %}</p>
<p>Cartes vues par la caméra : <b>{{ coup.camera_count }}</b>{% if coup.shoe_count is not none %} —
compte du sabot : <b>{{ coup.shoe_count }}</b>{% if coup.shoe_count != coup.camera_count %} <b>(différent)</b>{% endif %}{% endif %}</p>
<h2>Alertes</h2>
{% for f in flags %}<div class="flag {% if f.acks %}acked{% endif %}" data-flag="{{ f.event_id }}-{{ f.ordinal }}">
<b>⚠ {{ f.label }}</b> ({{ f.kind }}, {{ f.severity }}{% if f.seat is not none %}, place {{ f.seat }}{% endif %}) — {{ f.detail }}
<br>événement {{ f.event_id }}, {{ f.at }}
{% for e in f.evidence %}<br><a href="/review/evidence/{{ e.sha256 }}"><img src="/review/evidence/{{ e.sha256 }}" alt="preuve {{ e.sha256[:12] }}" style="max-width:320px"></a> <code>{{ e.sha256 }}</code>{% endfor %}
{% for a in f.acks %}<p class="ack">Acquittée par <b>{{ a.username }}</b> le {{ a.when }} : « {{ a.note }} »</p>{% endfor %}
<form method="post" action="/review/coups/{{ coup.number }}/flags/{{ f.event_id }}/{{ f.ordinal }}/ack">
<label>Note <input name="note" size="60" required></label> <button type="submit">Acquitter</button></form>
</div>{% else %}<p>Aucune alerte.</p>{% endfor %}
<h2>Mains</h2>
{% if table %}<table><tr><th>Place</th><th>Cartes</th><th>Mises</th><th>Décision</th><th>Main</th><th>Paiements</th></tr>
<tr><td>Croupier</td><td>{{ table.dealer.cards | map('string') | join(' ') }}</td><td></td><td></td>
<td>{{ settlement.dealer_hand if settlement else '' }}</td><td></td></tr>
{% for n, s in table.seats.items() %}<tr><td>{{ n }}</td><td>{{ s.cards | map('string') | join(' ') }}</td>
<td>{% for box, amount in s.fixed_bets.items() %}{{ box }} {{ euros(amount) }}<br>{% endfor %}{% if s.raise %}raise {{ euros(s.raise) }}{% endif %}</td>
<td>{{ s.decision or '' }}{% if s.hand_void %} (main nulle){% endif %}</td>
<td>{{ settlement.hands.get(n, '') if settlement else '' }}</td>
<td>{% for p in payouts.get(n, []) %}{{ p.line }} {{ p.outcome }} {{ euros(p.net) }}<br>{% endfor %}</td></tr>{% endfor %}</table>
{% if settlement %}<p>Annonces : {{ settlement.announced | join(', ') or '—' }} ; ordre de paiement : {{ settlement.paying_order | join(', ') }} ; banque {{ euros(settlement.house_net) }}</p>{% endif %}
{% endif %}
<h2>Chronologie</h2>
<table><tr><th>#</th><th>Heure (UTC)</th><th>Sujet</th><th>Source</th><th>Contenu</th></tr>
{% for e in coup.events %}<tr><td>{{ e.id }}</td><td>{{ e.at }}</td><td>{{ e.topic }}</td><td>{{ e.publisher }}#{{ e.seq }}</td><td><code>{{ e.body }}</code></td></tr>{% endfor %}
</table>{% endblock %}""",
    "admin.html": """{% extends "base.html" %}{% block title %}Utilisateurs{% endblock %}{% block body %}
<h1>Utilisateurs</h1>
{% if error %}<p class="error" role="alert">{{ error }}</p>{% endif %}
<table id="users"><tr><th>Utilisateur</th><th>Rôle</th><th>Créé (UTC)</th><th>État</th><th></th></tr>
{% for u in users %}<tr data-user="{{ u.username }}"><td>{{ u.username }}</td><td>{{ u.role }}</td><td>{{ u.created }}</td>
<td>{% if u.disabled %}désactivé le {{ u.disabled }}{% else %}actif{% endif %}</td>
<td>{% if not u.disabled and u.username != user.username %}<form class="inline" method="post" action="/review/admin/users/{{ u.username | urlencode }}/disable">
<button type="submit">Désactiver</button></form>{% endif %}</td></tr>{% endfor %}
</table>
<h2>Nouvel utilisateur</h2>
<form method="post" action="/review/admin/users">
<label>Utilisateur <input name="username" required maxlength="64"></label>
<label>Rôle <select name="role">{% for r in roles %}<option value="{{ r }}">{{ r }}</option>{% endfor %}</select></label>
<label>Mot de passe <input name="password" type="password" minlength="8" autocomplete="new-password" required></label>
<button type="submit">Créer</button></form>{% endblock %}""",
    "audit.html": """{% extends "base.html" %}{% block title %}Journal d'audit{% endblock %}{% block body %}
<h1>Journal d'audit</h1>
<table id="audit"><tr><th>#</th><th>Quand (UTC)</th><th>Qui</th><th>Action</th><th>Détail</th></tr>
{% for a in entries %}<tr><td>{{ a.id }}</td><td>{{ a.when }}</td><td>{{ a.username or '' }}</td><td>{{ a.action }}</td><td>{{ a.detail }}</td></tr>{% endfor %}
</table>{% endblock %}""",
}
