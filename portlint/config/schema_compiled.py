# schema.json compiled to Python by fastjsonschema.compile_to_code: do not edit.
# `PORTLINT_UPDATE_FIXTURES=1 pytest tests/config/test_config_schema.py` makes it again.
# schema.json sha256: 9a68291f657f937ea82f4996abf58de7fb9c4ca63df8f32c7398704b61e19971
VERSION = "2.22.3"
from decimal import Decimal
import re
from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[A-Za-z0-9_.-]+$': re.compile('^[A-Za-z0-9_.-]+\\Z'),
    '^PL[0-9]{1,3}$': re.compile('^PL[0-9]{1,3}\\Z'),
    '^(ALL|PL[0-9]{0,3})$': re.compile('^(ALL|PL[0-9]{0,3})\\Z'),
    '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$': re.compile('^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*\\Z')
}

NoneType = type(None)

def validate(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'https://json-schema.org/draft/2020-12/schema', 'title': 'portlint configuration', '$comment': 'Same schema for .portlint.yaml, portlint.toml and [tool.portlint] of pyproject.toml; docs/configuration.md is generated from it (scripts/docs.py), so every key carries a description. "x-expected" is portlint\'s own annotation: the expectation shown to the user when a value fails at that place. "x-alias-of" marks ruff\'s hyphenated spelling of a key, accepted alike (one of the two per file). "x-example" is the value the reference shows, "x-default" the default it states (not JSON Schema\'s "default", which fastjsonschema writes into the data it validates).', 'type': 'object', 'additionalProperties': False, 'properties': {'extend': {'type': 'string', 'minLength': 1, 'x-expected': 'a path to another config file', 'description': "Another config file this one inherits from, relative to this file's folder; it must lie inside the repository's work tree. Its keys apply unless this file sets them; bands merge by name (a band written here replaces the inherited band of that name); its select/ignore apply first, then this file's, as ruff layers them. A cycle is an error.", 'x-example': '../shared/portlint.yaml'}, 'ephemeral_floor': {'x-expected': 'an integer or "auto"', 'type': ['integer', 'string'], 'if': {'type': 'string'}, 'then': {'const': 'auto', 'x-expected': 'an integer or "auto"'}, 'else': {'minimum': 1, 'maximum': 65535}}, 'include': {'type': 'array', 'items': {'$ref': '#/$defs/glob'}}, 'exclude': {'type': 'array', 'items': {'$ref': '#/$defs/glob'}}, 'test_paths': {'type': 'array', 'items': {'$ref': '#/$defs/glob'}}, 'bands': {'type': 'object', 'propertyNames': {'pattern': '^[A-Za-z0-9_.-]+$', 'x-expected': 'a band name of letters, digits, "_", "." and "-"'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'range': {'$ref': '#/$defs/range', 'description': 'The band\'s ports, inclusive: "LOW-HIGH" or [LOW, HIGH]. A band has a range or a port.'}, 'port': {'$ref': '#/$defs/port', 'description': 'A single-port band.'}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'$ref': '#/$defs/port'}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'$ref': '#/$defs/glob_or_globs', 'description': 'Globs restricting every selector of the band to these files.'}, 'sites': {'type': 'array', 'items': {'$ref': '#/$defs/selector'}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, 'x-default': {}, 'description': 'The declared layout: one named band (a port range or a single port) per service. With bands, the layout rules run (PL103, PL201, PL203, PL301, PL302, PL501).', 'x-example': {'master': {'range': '1400-1999', 'sites': ['cluster.master_port_range_low', 'cluster.master_port_range_high']}}}, 'frozen': {'type': 'array', 'items': {'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'$ref': '#/$defs/glob', 'description': 'A glob of the copies.'}, 'source': {'$ref': '#/$defs/glob_or_globs', 'description': "Path templates of each copy's source ({name}: the copy's file name, {stem}: without its suffix); the first that exists is used."}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}, 'x-default': [], 'description': 'Frozen copies: files that must mirror another file key by key (PL401, PL402).', 'x-example': [{'copies': 'tests/unit/reference_configs/*.yaml', 'source': 'examples/configs/{name}'}]}, 'select': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'extend_select': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'ignore': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'per_file_ignores': {'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'$ref': '#/$defs/code'}}}, 'extend-select': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'per-file-ignores': {'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'$ref': '#/$defs/code'}}}}, '$defs': {'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'floor': {'x-expected': 'an integer or "auto"', 'type': ['integer', 'string'], 'if': {'type': 'string'}, 'then': {'const': 'auto', 'x-expected': 'an integer or "auto"'}, 'else': {'minimum': 1, 'maximum': 65535}}, 'glob': {'type': 'string', 'minLength': 1}, 'globs': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}}, 'glob_or_globs': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'type': 'string', 'minLength': 1}}, 'code': {'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}, 'selection': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'per_file_ignores': {'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}}}, 'range': {'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, 'band': {'type': 'object', 'additionalProperties': False, 'properties': {'range': {'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, 'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'sites': {'type': 'array', 'items': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'$ref': '#/$defs/glob_or_globs'}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, 'selector': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'frozen': {'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'type': 'string', 'minLength': 1}, 'source': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "extend" in data_keys:
            data_keys.remove("extend")
            data__extend = data["extend"]
            if not isinstance(data__extend, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".extend must be string", value=data__extend, name="" + (name_prefix or "data") + ".extend", definition={'type': 'string', 'minLength': 1, 'x-expected': 'a path to another config file', 'description': "Another config file this one inherits from, relative to this file's folder; it must lie inside the repository's work tree. Its keys apply unless this file sets them; bands merge by name (a band written here replaces the inherited band of that name); its select/ignore apply first, then this file's, as ruff layers them. A cycle is an error.", 'x-example': '../shared/portlint.yaml'}, rule='type')
            if isinstance(data__extend, str):
                data__extend_len = len(data__extend)
                if data__extend_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".extend must be longer than or equal to 1 characters", value=data__extend, name="" + (name_prefix or "data") + ".extend", definition={'type': 'string', 'minLength': 1, 'x-expected': 'a path to another config file', 'description': "Another config file this one inherits from, relative to this file's folder; it must lie inside the repository's work tree. Its keys apply unless this file sets them; bands merge by name (a band written here replaces the inherited band of that name); its select/ignore apply first, then this file's, as ruff layers them. A cycle is an error.", 'x-example': '../shared/portlint.yaml'}, rule='minLength')
        if "ephemeral_floor" in data_keys:
            data_keys.remove("ephemeral_floor")
            data__ephemeralfloor = data["ephemeral_floor"]
            validate____defs_floor(data__ephemeralfloor, custom_formats, (name_prefix or "data") + ".ephemeral_floor")
        if "include" in data_keys:
            data_keys.remove("include")
            data__include = data["include"]
            validate____defs_globs(data__include, custom_formats, (name_prefix or "data") + ".include")
        if "exclude" in data_keys:
            data_keys.remove("exclude")
            data__exclude = data["exclude"]
            validate____defs_globs(data__exclude, custom_formats, (name_prefix or "data") + ".exclude")
        if "test_paths" in data_keys:
            data_keys.remove("test_paths")
            data__testpaths = data["test_paths"]
            validate____defs_globs(data__testpaths, custom_formats, (name_prefix or "data") + ".test_paths")
        if "bands" in data_keys:
            data_keys.remove("bands")
            data__bands = data["bands"]
            if not isinstance(data__bands, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".bands must be object", value=data__bands, name="" + (name_prefix or "data") + ".bands", definition={'type': 'object', 'propertyNames': {'pattern': '^[A-Za-z0-9_.-]+$', 'x-expected': 'a band name of letters, digits, "_", "." and "-"'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'range': {'$ref': '#/$defs/range', 'description': 'The band\'s ports, inclusive: "LOW-HIGH" or [LOW, HIGH]. A band has a range or a port.'}, 'port': {'$ref': '#/$defs/port', 'description': 'A single-port band.'}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'$ref': '#/$defs/port'}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'$ref': '#/$defs/glob_or_globs', 'description': 'Globs restricting every selector of the band to these files.'}, 'sites': {'type': 'array', 'items': {'$ref': '#/$defs/selector'}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, 'x-default': {}, 'description': 'The declared layout: one named band (a port range or a single port) per service. With bands, the layout rules run (PL103, PL201, PL203, PL301, PL302, PL501).', 'x-example': {'master': {'range': '1400-1999', 'sites': ['cluster.master_port_range_low', 'cluster.master_port_range_high']}}}, rule='type')
            data__bands_is_dict = isinstance(data__bands, dict)
            if data__bands_is_dict:
                data__bands_keys = set(data__bands.keys())
                for data__bands_key in data__bands_keys:
                    if data__bands_key not in []:
                        data__bands_value = data__bands.get(data__bands_key)
                        validate____defs_band(data__bands_value, custom_formats, (name_prefix or "data") + ".bands.{data__bands_key}".format(**locals()))
                data__bands_len = len(data__bands)
                if data__bands_len != 0:
                    data__bands_property_names = True
                    for data__bands_key in data__bands:
                        try:
                            if isinstance(data__bands_key, str):
                                if not REGEX_PATTERNS['^[A-Za-z0-9_.-]+$'].search(data__bands_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".bands must match pattern ^[A-Za-z0-9_.-]+$", value=data__bands_key, name="" + (name_prefix or "data") + ".bands", definition={'pattern': '^[A-Za-z0-9_.-]+$', 'x-expected': 'a band name of letters, digits, "_", "." and "-"'}, rule='pattern')
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__bands_property_names = False
                    if not data__bands_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".bands must be named by propertyName definition", value=data__bands, name="" + (name_prefix or "data") + ".bands", definition={'type': 'object', 'propertyNames': {'pattern': '^[A-Za-z0-9_.-]+$', 'x-expected': 'a band name of letters, digits, "_", "." and "-"'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'range': {'$ref': '#/$defs/range', 'description': 'The band\'s ports, inclusive: "LOW-HIGH" or [LOW, HIGH]. A band has a range or a port.'}, 'port': {'$ref': '#/$defs/port', 'description': 'A single-port band.'}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'$ref': '#/$defs/port'}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'$ref': '#/$defs/glob_or_globs', 'description': 'Globs restricting every selector of the band to these files.'}, 'sites': {'type': 'array', 'items': {'$ref': '#/$defs/selector'}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, 'x-default': {}, 'description': 'The declared layout: one named band (a port range or a single port) per service. With bands, the layout rules run (PL103, PL201, PL203, PL301, PL302, PL501).', 'x-example': {'master': {'range': '1400-1999', 'sites': ['cluster.master_port_range_low', 'cluster.master_port_range_high']}}}, rule='propertyNames')
        if "frozen" in data_keys:
            data_keys.remove("frozen")
            data__frozen = data["frozen"]
            if not isinstance(data__frozen, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".frozen must be array", value=data__frozen, name="" + (name_prefix or "data") + ".frozen", definition={'type': 'array', 'items': {'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'$ref': '#/$defs/glob', 'description': 'A glob of the copies.'}, 'source': {'$ref': '#/$defs/glob_or_globs', 'description': "Path templates of each copy's source ({name}: the copy's file name, {stem}: without its suffix); the first that exists is used."}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}, 'x-default': [], 'description': 'Frozen copies: files that must mirror another file key by key (PL401, PL402).', 'x-example': [{'copies': 'tests/unit/reference_configs/*.yaml', 'source': 'examples/configs/{name}'}]}, rule='type')
            data__frozen_is_list = isinstance(data__frozen, (list, tuple))
            if data__frozen_is_list:
                data__frozen_len = len(data__frozen)
                for data__frozen_x, data__frozen_item in enumerate(data__frozen):
                    validate____defs_frozen(data__frozen_item, custom_formats, (name_prefix or "data") + ".frozen[{data__frozen_x}]".format(**locals()))
        if "select" in data_keys:
            data_keys.remove("select")
            data__select = data["select"]
            validate____defs_selection(data__select, custom_formats, (name_prefix or "data") + ".select")
        if "extend_select" in data_keys:
            data_keys.remove("extend_select")
            data__extendselect = data["extend_select"]
            validate____defs_selection(data__extendselect, custom_formats, (name_prefix or "data") + ".extend_select")
        if "ignore" in data_keys:
            data_keys.remove("ignore")
            data__ignore = data["ignore"]
            validate____defs_selection(data__ignore, custom_formats, (name_prefix or "data") + ".ignore")
        if "per_file_ignores" in data_keys:
            data_keys.remove("per_file_ignores")
            data__perfileignores = data["per_file_ignores"]
            validate____defs_per_file_ignores(data__perfileignores, custom_formats, (name_prefix or "data") + ".per_file_ignores")
        if "extend-select" in data_keys:
            data_keys.remove("extend-select")
            data__extendselect = data["extend-select"]
            validate____defs_selection(data__extendselect, custom_formats, (name_prefix or "data") + ".extend-select")
        if "per-file-ignores" in data_keys:
            data_keys.remove("per-file-ignores")
            data__perfileignores = data["per-file-ignores"]
            validate____defs_per_file_ignores(data__perfileignores, custom_formats, (name_prefix or "data") + ".per-file-ignores")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'https://json-schema.org/draft/2020-12/schema', 'title': 'portlint configuration', '$comment': 'Same schema for .portlint.yaml, portlint.toml and [tool.portlint] of pyproject.toml; docs/configuration.md is generated from it (scripts/docs.py), so every key carries a description. "x-expected" is portlint\'s own annotation: the expectation shown to the user when a value fails at that place. "x-alias-of" marks ruff\'s hyphenated spelling of a key, accepted alike (one of the two per file). "x-example" is the value the reference shows, "x-default" the default it states (not JSON Schema\'s "default", which fastjsonschema writes into the data it validates).', 'type': 'object', 'additionalProperties': False, 'properties': {'extend': {'type': 'string', 'minLength': 1, 'x-expected': 'a path to another config file', 'description': "Another config file this one inherits from, relative to this file's folder; it must lie inside the repository's work tree. Its keys apply unless this file sets them; bands merge by name (a band written here replaces the inherited band of that name); its select/ignore apply first, then this file's, as ruff layers them. A cycle is an error.", 'x-example': '../shared/portlint.yaml'}, 'ephemeral_floor': {'x-expected': 'an integer or "auto"', 'type': ['integer', 'string'], 'if': {'type': 'string'}, 'then': {'const': 'auto', 'x-expected': 'an integer or "auto"'}, 'else': {'minimum': 1, 'maximum': 65535}}, 'include': {'type': 'array', 'items': {'$ref': '#/$defs/glob'}}, 'exclude': {'type': 'array', 'items': {'$ref': '#/$defs/glob'}}, 'test_paths': {'type': 'array', 'items': {'$ref': '#/$defs/glob'}}, 'bands': {'type': 'object', 'propertyNames': {'pattern': '^[A-Za-z0-9_.-]+$', 'x-expected': 'a band name of letters, digits, "_", "." and "-"'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'range': {'$ref': '#/$defs/range', 'description': 'The band\'s ports, inclusive: "LOW-HIGH" or [LOW, HIGH]. A band has a range or a port.'}, 'port': {'$ref': '#/$defs/port', 'description': 'A single-port band.'}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'$ref': '#/$defs/port'}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'$ref': '#/$defs/glob_or_globs', 'description': 'Globs restricting every selector of the band to these files.'}, 'sites': {'type': 'array', 'items': {'$ref': '#/$defs/selector'}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, 'x-default': {}, 'description': 'The declared layout: one named band (a port range or a single port) per service. With bands, the layout rules run (PL103, PL201, PL203, PL301, PL302, PL501).', 'x-example': {'master': {'range': '1400-1999', 'sites': ['cluster.master_port_range_low', 'cluster.master_port_range_high']}}}, 'frozen': {'type': 'array', 'items': {'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'$ref': '#/$defs/glob', 'description': 'A glob of the copies.'}, 'source': {'$ref': '#/$defs/glob_or_globs', 'description': "Path templates of each copy's source ({name}: the copy's file name, {stem}: without its suffix); the first that exists is used."}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}, 'x-default': [], 'description': 'Frozen copies: files that must mirror another file key by key (PL401, PL402).', 'x-example': [{'copies': 'tests/unit/reference_configs/*.yaml', 'source': 'examples/configs/{name}'}]}, 'select': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'extend_select': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'ignore': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'per_file_ignores': {'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'$ref': '#/$defs/code'}}}, 'extend-select': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'per-file-ignores': {'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'$ref': '#/$defs/code'}}}}, '$defs': {'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'floor': {'x-expected': 'an integer or "auto"', 'type': ['integer', 'string'], 'if': {'type': 'string'}, 'then': {'const': 'auto', 'x-expected': 'an integer or "auto"'}, 'else': {'minimum': 1, 'maximum': 65535}}, 'glob': {'type': 'string', 'minLength': 1}, 'globs': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}}, 'glob_or_globs': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'type': 'string', 'minLength': 1}}, 'code': {'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}, 'selection': {'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, 'per_file_ignores': {'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}}}, 'range': {'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, 'band': {'type': 'object', 'additionalProperties': False, 'properties': {'range': {'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, 'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'sites': {'type': 'array', 'items': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'$ref': '#/$defs/glob_or_globs'}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, 'selector': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'frozen': {'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'type': 'string', 'minLength': 1}, 'source': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}}}, rule='additionalProperties')
    return data

def validate____defs_per_file_ignores(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        for data_key in data_keys:
            if data_key not in []:
                data_value = data.get(data_key)
                if not isinstance(data_value, (list, tuple)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".{data_key}".format(**locals()) + " must be array", value=data_value, name="" + (name_prefix or "data") + ".{data_key}".format(**locals()) + "", definition={'type': 'array', 'items': {'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}}, rule='type')
                data_value_is_list = isinstance(data_value, (list, tuple))
                if data_value_is_list:
                    data_value_len = len(data_value)
                    for data_value_x, data_value_item in enumerate(data_value):
                        validate____defs_code(data_value_item, custom_formats, (name_prefix or "data") + ".{data_key}[{data_value_x}]".format(**locals()))
        data_len = len(data)
        if data_len != 0:
            data_property_names = True
            for data_key in data:
                try:
                    if isinstance(data_key, str):
                        data_key_len = len(data_key)
                        if data_key_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be longer than or equal to 1 characters", value=data_key, name="" + (name_prefix or "data") + "", definition={'minLength': 1, 'x-expected': 'a non-empty glob'}, rule='minLength')
                except (JsonSchemaValueException, JsonSchemaValuesException):
                    data_property_names = False
            if not data_property_names:
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must be named by propertyName definition", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'propertyNames': {'minLength': 1, 'x-expected': 'a non-empty glob'}, 'additionalProperties': {'type': 'array', 'items': {'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}}}, rule='propertyNames')
    return data

def validate____defs_code(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}, rule='type')
    if isinstance(data, str):
        if not REGEX_PATTERNS['^PL[0-9]{1,3}$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^PL[0-9]{1,3}$", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string', 'pattern': '^PL[0-9]{1,3}$', 'x-expected': 'a rule code such as "PL501" (or a prefix such as "PL5")'}, rule='pattern')
    return data

def validate____defs_selection(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'array', 'items': {'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}}, rule='type')
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be string", value=data_item, name="" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + "", definition={'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}, rule='type')
            if isinstance(data_item, str):
                if not REGEX_PATTERNS['^(ALL|PL[0-9]{0,3})$'].search(data_item):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must match pattern ^(ALL|PL[0-9]{0,3})$", value=data_item, name="" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + "", definition={'type': 'string', 'pattern': '^(ALL|PL[0-9]{0,3})$', 'x-expected': 'a rule code such as "PL301", a prefix such as "PL3", or "ALL"'}, rule='pattern')
    return data

def validate____defs_frozen(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'type': 'string', 'minLength': 1}, 'source': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['copies', 'source']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'type': 'string', 'minLength': 1}, 'source': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}, rule='required')
        data_keys = set(data.keys())
        if "copies" in data_keys:
            data_keys.remove("copies")
            data__copies = data["copies"]
            validate____defs_glob(data__copies, custom_formats, (name_prefix or "data") + ".copies")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            validate____defs_glob_or_globs(data__source, custom_formats, (name_prefix or "data") + ".source")
        if "compare" in data_keys:
            data_keys.remove("compare")
            data__compare = data["compare"]
            if not (isinstance(data__compare, str) and data__compare == 'ports' or isinstance(data__compare, str) and data__compare == 'all'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".compare must be one of ['ports', 'all']", value=data__compare, name="" + (name_prefix or "data") + ".compare", definition={'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, rule='enum')
        if "inferred" in data_keys:
            data_keys.remove("inferred")
            data__inferred = data["inferred"]
            if not isinstance(data__inferred, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".inferred must be boolean", value=data__inferred, name="" + (name_prefix or "data") + ".inferred", definition={'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}, rule='type')
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'required': ['copies', 'source'], 'properties': {'copies': {'type': 'string', 'minLength': 1}, 'source': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'compare': {'enum': ['ports', 'all'], 'description': 'Compare the port values only (default) or every scalar.'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe.'}}}, rule='additionalProperties')
    return data

def validate____defs_glob_or_globs(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str, list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string or array", value=data, name="" + (name_prefix or "data") + "", definition={'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'type': 'string', 'minLength': 1}}, rule='type')
    if isinstance(data, str):
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be longer than or equal to 1 characters", value=data, name="" + (name_prefix or "data") + "", definition={'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'type': 'string', 'minLength': 1}}, rule='minLength')
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate____defs_glob(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate____defs_glob(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string', 'minLength': 1}, rule='type')
    if isinstance(data, str):
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be longer than or equal to 1 characters", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string', 'minLength': 1}, rule='minLength')
    return data

def validate____defs_band(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'properties': {'range': {'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, 'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'sites': {'type': 'array', 'items': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'$ref': '#/$defs/glob_or_globs'}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, rule='type')
    data_one_of_count1 = 0
    if data_one_of_count1 < 2:
        try:
            data_is_dict = isinstance(data, dict)
            if data_is_dict:
                data__missing_keys = set(['range']) - data.keys()
                if data__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'required': ['range']}, rule='required')
            data_one_of_count1 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if data_one_of_count1 < 2:
        try:
            data_is_dict = isinstance(data, dict)
            if data_is_dict:
                data__missing_keys = set(['port']) - data.keys()
                if data__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'required': ['port']}, rule='required')
            data_one_of_count1 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if data_one_of_count1 != 1:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be valid exactly by one definition" + (" (" + str(data_one_of_count1) + " matches found)"), value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'properties': {'range': {'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, 'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'sites': {'type': 'array', 'items': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'$ref': '#/$defs/glob_or_globs'}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, rule='oneOf')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "range" in data_keys:
            data_keys.remove("range")
            data__range = data["range"]
            validate____defs_range(data__range, custom_formats, (name_prefix or "data") + ".range")
        if "port" in data_keys:
            data_keys.remove("port")
            data__port = data["port"]
            validate____defs_port(data__port, custom_formats, (name_prefix or "data") + ".port")
        if "description" in data_keys:
            data_keys.remove("description")
            data__description = data["description"]
            if not isinstance(data__description, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be string", value=data__description, name="" + (name_prefix or "data") + ".description", definition={'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, rule='type')
        if "within" in data_keys:
            data_keys.remove("within")
            data__within = data["within"]
            if not isinstance(data__within, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".within must be string", value=data__within, name="" + (name_prefix or "data") + ".within", definition={'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, rule='type')
            if isinstance(data__within, str):
                data__within_len = len(data__within)
                if data__within_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".within must be longer than or equal to 1 characters", value=data__within, name="" + (name_prefix or "data") + ".within", definition={'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, rule='minLength')
        if "shares_with" in data_keys:
            data_keys.remove("shares_with")
            data__shareswith = data["shares_with"]
            if not isinstance(data__shareswith, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".shares_with must be array", value=data__shareswith, name="" + (name_prefix or "data") + ".shares_with", definition={'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, rule='type')
            data__shareswith_is_list = isinstance(data__shareswith, (list, tuple))
            if data__shareswith_is_list:
                data__shareswith_len = len(data__shareswith)
                for data__shareswith_x, data__shareswith_item in enumerate(data__shareswith):
                    if not isinstance(data__shareswith_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".shares_with[{data__shareswith_x}]".format(**locals()) + " must be string", value=data__shareswith_item, name="" + (name_prefix or "data") + ".shares_with[{data__shareswith_x}]".format(**locals()) + "", definition={'type': 'string', 'minLength': 1}, rule='type')
                    if isinstance(data__shareswith_item, str):
                        data__shareswith_item_len = len(data__shareswith_item)
                        if data__shareswith_item_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".shares_with[{data__shareswith_x}]".format(**locals()) + " must be longer than or equal to 1 characters", value=data__shareswith_item, name="" + (name_prefix or "data") + ".shares_with[{data__shareswith_x}]".format(**locals()) + "", definition={'type': 'string', 'minLength': 1}, rule='minLength')
        if "ports" in data_keys:
            data_keys.remove("ports")
            data__ports = data["ports"]
            if not isinstance(data__ports, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ports must be object", value=data__ports, name="" + (name_prefix or "data") + ".ports", definition={'type': 'object', 'additionalProperties': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, rule='type')
            data__ports_is_dict = isinstance(data__ports, dict)
            if data__ports_is_dict:
                data__ports_keys = set(data__ports.keys())
                for data__ports_key in data__ports_keys:
                    if data__ports_key not in []:
                        data__ports_value = data__ports.get(data__ports_key)
                        validate____defs_port(data__ports_value, custom_formats, (name_prefix or "data") + ".ports.{data__ports_key}".format(**locals()))
        if "window" in data_keys:
            data_keys.remove("window")
            data__window = data["window"]
            if not isinstance(data__window, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".window must be object", value=data__window, name="" + (name_prefix or "data") + ".window", definition={'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, rule='type')
            data__window_is_dict = isinstance(data__window, dict)
            if data__window_is_dict:
                data__window__missing_keys = set(['stride', 'count']) - data__window.keys()
                if data__window__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".window must contain " + (str(sorted(data__window__missing_keys)) + " properties"), value=data__window, name="" + (name_prefix or "data") + ".window", definition={'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, rule='required')
                data__window_keys = set(data__window.keys())
                if "stride" in data__window_keys:
                    data__window_keys.remove("stride")
                    data__window__stride = data__window["stride"]
                    if not isinstance(data__window__stride, (int)) and not (isinstance(data__window__stride, float) and data__window__stride.is_integer()) or isinstance(data__window__stride, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".window.stride must be integer", value=data__window__stride, name="" + (name_prefix or "data") + ".window.stride", definition={'type': 'integer', 'minimum': 1}, rule='type')
                    if isinstance(data__window__stride, (int, float, Decimal)) and not isinstance(data__window__stride, bool):
                        if data__window__stride < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".window.stride must be bigger than or equal to 1", value=data__window__stride, name="" + (name_prefix or "data") + ".window.stride", definition={'type': 'integer', 'minimum': 1}, rule='minimum')
                if "count" in data__window_keys:
                    data__window_keys.remove("count")
                    data__window__count = data__window["count"]
                    if not isinstance(data__window__count, (int)) and not (isinstance(data__window__count, float) and data__window__count.is_integer()) or isinstance(data__window__count, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".window.count must be integer", value=data__window__count, name="" + (name_prefix or "data") + ".window.count", definition={'type': 'integer', 'minimum': 1}, rule='type')
                    if isinstance(data__window__count, (int, float, Decimal)) and not isinstance(data__window__count, bool):
                        if data__window__count < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".window.count must be bigger than or equal to 1", value=data__window__count, name="" + (name_prefix or "data") + ".window.count", definition={'type': 'integer', 'minimum': 1}, rule='minimum')
                if data__window_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".window must not contain "+str(data__window_keys)+" properties", value=data__window, name="" + (name_prefix or "data") + ".window", definition={'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, rule='additionalProperties')
        if "files" in data_keys:
            data_keys.remove("files")
            data__files = data["files"]
            validate____defs_glob_or_globs(data__files, custom_formats, (name_prefix or "data") + ".files")
        if "sites" in data_keys:
            data_keys.remove("sites")
            data__sites = data["sites"]
            if not isinstance(data__sites, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sites must be array", value=data__sites, name="" + (name_prefix or "data") + ".sites", definition={'type': 'array', 'items': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'$ref': '#/$defs/glob_or_globs'}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, rule='type')
            data__sites_is_list = isinstance(data__sites, (list, tuple))
            if data__sites_is_list:
                data__sites_len = len(data__sites)
                for data__sites_x, data__sites_item in enumerate(data__sites):
                    validate____defs_selector(data__sites_item, custom_formats, (name_prefix or "data") + ".sites[{data__sites_x}]".format(**locals()))
        if "privileged" in data_keys:
            data_keys.remove("privileged")
            data__privileged = data["privileged"]
            if not isinstance(data__privileged, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".privileged must be boolean", value=data__privileged, name="" + (name_prefix or "data") + ".privileged", definition={'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, rule='type')
        if "inferred" in data_keys:
            data_keys.remove("inferred")
            data__inferred = data["inferred"]
            if not isinstance(data__inferred, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".inferred must be boolean", value=data__inferred, name="" + (name_prefix or "data") + ".inferred", definition={'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}, rule='type')
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'properties': {'range': {'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, 'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': {'type': 'string', 'description': 'What runs there (shown by `portlint map`).'}, 'within': {'type': 'string', 'minLength': 1, 'description': 'The band this one is carved out of: it may lie inside it.'}, 'shares_with': {'type': 'array', 'items': {'type': 'string', 'minLength': 1}, 'description': 'Bands allowed to overlap this one because they never run together.'}, 'ports': {'type': 'object', 'additionalProperties': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'description': 'Named single ports inside the band; a site of that name is bound to its port.'}, 'window': {'type': 'object', 'additionalProperties': False, 'required': ['stride', 'count'], 'properties': {'stride': {'type': 'integer', 'minimum': 1}, 'count': {'type': 'integer', 'minimum': 1}}, 'description': "Per-instance windows from the band's low end: `count` windows of `stride` ports (PL203)."}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'sites': {'type': 'array', 'items': {'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'$ref': '#/$defs/glob_or_globs'}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, 'description': 'Selectors of the sites bound to the band: a YAML key path (or a suffix of it at a dot), a shell variable or --long-option, a Python name, an environment-variable name; or a mapping with `name` and optional `files`, `kind` and `role`.'}, 'privileged': {'type': 'boolean', 'description': 'The band may sit below 1024 (PL103).'}, 'inferred': {'type': 'boolean', 'description': 'Written by `portlint init` and not yet confirmed: its fixes are unsafe. Delete the line once reviewed.'}}, 'oneOf': [{'required': ['range']}, {'required': ['port']}]}, rule='additionalProperties')
    return data

def validate____defs_selector(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str, dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string or object", value=data, name="" + (name_prefix or "data") + "", definition={'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, rule='type')
    if isinstance(data, str):
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be longer than or equal to 1 characters", value=data, name="" + (name_prefix or "data") + "", definition={'x-expected': 'a name or a mapping with "name"', 'type': ['string', 'object'], 'minLength': 1, 'if': {'type': 'object'}, 'then': {'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}}, rule='minLength')
    try:
        if not isinstance(data, (dict)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object'}, rule='type')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data__missing_keys = set(['name']) - data.keys()
            if data__missing_keys:
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}, rule='required')
            data_keys = set(data.keys())
            if "name" in data_keys:
                data_keys.remove("name")
                data__name = data["name"]
                if not isinstance(data__name, (str)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must be string", value=data__name, name="" + (name_prefix or "data") + ".name", definition={'type': 'string', 'minLength': 1}, rule='type')
                if isinstance(data__name, str):
                    data__name_len = len(data__name)
                    if data__name_len < 1:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must be longer than or equal to 1 characters", value=data__name, name="" + (name_prefix or "data") + ".name", definition={'type': 'string', 'minLength': 1}, rule='minLength')
            if "files" in data_keys:
                data_keys.remove("files")
                data__files = data["files"]
                validate____defs_glob_or_globs(data__files, custom_formats, (name_prefix or "data") + ".files")
            if "kind" in data_keys:
                data_keys.remove("kind")
                data__kind = data["kind"]
                if not (isinstance(data__kind, str) and data__kind == 'yaml' or isinstance(data__kind, str) and data__kind == 'shell' or isinstance(data__kind, str) and data__kind == 'python' or isinstance(data__kind, str) and data__kind == 'markdown' or isinstance(data__kind, str) and data__kind == 'comment'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind must be one of ['yaml', 'shell', 'python', 'markdown', 'comment']", value=data__kind, name="" + (name_prefix or "data") + ".kind", definition={'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, rule='enum')
            if "role" in data_keys:
                data_keys.remove("role")
                data__role = data["role"]
                if not (isinstance(data__role, str) and data__role == 'port' or isinstance(data__role, str) and data__role == 'low' or isinstance(data__role, str) and data__role == 'high' or isinstance(data__role, str) and data__role == 'base'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".role must be one of ['port', 'low', 'high', 'base']", value=data__role, name="" + (name_prefix or "data") + ".role", definition={'enum': ['port', 'low', 'high', 'base']}, rule='enum')
            if data_keys:
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'additionalProperties': False, 'required': ['name'], 'properties': {'name': {'type': 'string', 'minLength': 1}, 'files': {'x-expected': 'a glob or a list of globs', 'type': ['string', 'array'], 'minLength': 1, 'items': {'$ref': '#/$defs/glob'}}, 'kind': {'enum': ['yaml', 'shell', 'python', 'markdown', 'comment']}, 'role': {'enum': ['port', 'low', 'high', 'base']}}}, rule='additionalProperties')
    return data

def validate____defs_port(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (int)) and not (isinstance(data, float) and data.is_integer()) or isinstance(data, bool):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be integer", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'integer', 'minimum': 1, 'maximum': 65535}, rule='type')
    if isinstance(data, (int, float, Decimal)) and not isinstance(data, bool):
        if data < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be bigger than or equal to 1", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'integer', 'minimum': 1, 'maximum': 65535}, rule='minimum')
        if data > 65535:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be smaller than or equal to 65535", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'integer', 'minimum': 1, 'maximum': 65535}, rule='maximum')
    return data

def validate____defs_range(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str, list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string or array", value=data, name="" + (name_prefix or "data") + "", definition={'x-expected': '"LOW-HIGH" or [LOW, HIGH]', 'type': ['string', 'array'], 'if': {'type': 'string'}, 'then': {'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, 'else': {'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}}, rule='type')
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string'}, rule='type')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        data_is_list = isinstance(data, (list, tuple))
        if data_is_list:
            data_len = len(data)
            if data_len < 2:
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 2 items", value=data, name="" + (name_prefix or "data") + "", definition={'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}, rule='minItems')
            if data_len > 2:
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain less than or equal to 2 items", value=data, name="" + (name_prefix or "data") + "", definition={'minItems': 2, 'maxItems': 2, 'items': {'type': 'integer'}, 'x-expected': '[LOW, HIGH]'}, rule='maxItems')
            for data_x, data_item in enumerate(data):
                if not isinstance(data_item, (int)) and not (isinstance(data_item, float) and data_item.is_integer()) or isinstance(data_item, bool):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be integer", value=data_item, name="" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + "", definition={'type': 'integer'}, rule='type')
    else:
        if isinstance(data, str):
            if not REGEX_PATTERNS['^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$", value=data, name="" + (name_prefix or "data") + "", definition={'pattern': '^\\s*[0-9]+\\s*-\\s*[0-9]+\\s*$', 'x-expected': '"LOW-HIGH" or [LOW, HIGH]'}, rule='pattern')
    return data

def validate____defs_globs(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'array', 'items': {'type': 'string', 'minLength': 1}}, rule='type')
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate____defs_glob(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate____defs_floor(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (int, str)) and not (isinstance(data, float) and data.is_integer()) or isinstance(data, bool):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be integer or string", value=data, name="" + (name_prefix or "data") + "", definition={'x-expected': 'an integer or "auto"', 'type': ['integer', 'string'], 'if': {'type': 'string'}, 'then': {'const': 'auto', 'x-expected': 'an integer or "auto"'}, 'else': {'minimum': 1, 'maximum': 65535}}, rule='type')
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string'}, rule='type')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        if isinstance(data, (int, float, Decimal)) and not isinstance(data, bool):
            if data < 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must be bigger than or equal to 1", value=data, name="" + (name_prefix or "data") + "", definition={'minimum': 1, 'maximum': 65535}, rule='minimum')
            if data > 65535:
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must be smaller than or equal to 65535", value=data, name="" + (name_prefix or "data") + "", definition={'minimum': 1, 'maximum': 65535}, rule='maximum')
    else:
        if not (isinstance(data, str) and data == 'auto'):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be same as const definition: auto", value=data, name="" + (name_prefix or "data") + "", definition={'const': 'auto', 'x-expected': 'an integer or "auto"'}, rule='const')
    return data
