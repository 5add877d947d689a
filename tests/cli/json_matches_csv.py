#!/usr/bin/env python3
"""json_matches_csv.py CSV JSON: the JSON document (lanebench --json) parses
and holds what the CSV holds: the head's provenance (plus the JSON's own
format), the columns, and every row, value for value (an empty field is
null, numbers equal as numbers).  Exit 0, or 1 naming the first difference."""
import csv
import json
import sys


def read_csv(path):
    prov, lines = {}, []
    with open(path) as f:
        for line in f:
            if not lines and line.startswith("# "):
                key, _, value = line[2:].rstrip("\n").partition(": ")
                prov[key] = value
            elif not line.startswith("#"):
                lines.append(line)
    rows = list(csv.reader(lines))
    return prov, rows[0], rows[1:]


def same(text, value):
    if text == "":
        return value is None
    if isinstance(value, str):
        return text == value
    try:
        return float(text) == float(value)
    except (TypeError, ValueError):
        return False


def main(csv_path, json_path):
    prov, cols, rows = read_csv(csv_path)
    with open(json_path) as f:
        doc = json.load(f)
    jprov = dict(doc["provenance"])
    if jprov.pop("format", None) != "lanebench-json 1" or prov.pop("format", None) != "lanebench-csv 2":
        return "format missing"
    if jprov != prov:
        return "provenance differs: %s vs %s" % (sorted(set(jprov.items()) ^ set(prov.items())),)
    if doc["columns"] != cols:
        return "columns differ: %s vs %s" % (doc["columns"], cols)
    if len(doc["rows"]) != len(rows):
        return "%d rows in JSON, %d in CSV" % (len(doc["rows"]), len(rows))
    for i, (jrow, crow) in enumerate(zip(doc["rows"], rows)):
        for c, text in zip(cols, crow):
            if not same(text, jrow[c]):
                return "row %d column %s: CSV %r, JSON %r" % (i, c, text, jrow[c])
    return None


if __name__ == "__main__":
    why = main(sys.argv[1], sys.argv[2])
    if why:
        print("json_matches_csv: " + why, file=sys.stderr)
        sys.exit(1)
