with open("references/factors.md", encoding="utf-8") as f:
    MILES_PER_KM = float(f.read().split()[3])
