"""Registry of the subcommands beyond `grid`; each module adds its parser lazily."""
REGISTER: list = []
