"""Recipes: one script per committed model that rebuilds it from committed data and code.

    python -m training.recipes.table_detector --dry-run     # models/table_detector.pt (+ .onnx)
    python -m training.recipes.card_index --dry-run         # models/card_index.pt (+ .onnx)
    python -m training.recipes.card_detector --dry-run      # models/card_detector.pt
    python -m training.recipes.card_identifier --dry-run    # models/card_identifier.pt

Each script lists the model's lineage: the stages that made it, each with the commit that committed its weights and
the commands that trained it. By default it runs the last stage only, from its parent's weights taken out of git
(``git show <commit>:models/<file>``). ``--from-scratch`` runs every stage in order. Either way the lineage is
written into the new checkpoint's metadata. ``--stamp FILE`` writes the recorded lineage into FILE and trains
nothing. The steps themselves are ``training``'s module commands, run as subprocesses.
"""
