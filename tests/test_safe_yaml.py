import pytest

from quest.safe_yaml import MAX_YAML_DEPTH, UnsafeYAML, fix_tabs_after_colon, load_yaml


def test_plain_mapping_loads():
    assert load_yaml("id: 239\ntags: [deque, window]\n").value == {"id": 239, "tags": ["deque", "window"]}
    assert load_yaml("").value is None


def test_alias_bomb_is_refused_before_expansion():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(9)
    )
    with pytest.raises(UnsafeYAML) as info:
        load_yaml(bomb)
    assert info.value.line == 1
    assert "anchors and aliases" in info.value.reason


def test_lone_anchor_is_refused_with_its_line():
    with pytest.raises(UnsafeYAML) as info:
        load_yaml("title: x\nlimits: &l {time: 1}\n")
    assert info.value.line == 2


def test_depth_is_capped():
    deep = "[" * (MAX_YAML_DEPTH + 1) + "]" * (MAX_YAML_DEPTH + 1)
    with pytest.raises(UnsafeYAML, match="nested deeper"):
        load_yaml(deep)
    ok = "[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH
    assert load_yaml(ok).value is not None


def test_size_is_capped():
    with pytest.raises(UnsafeYAML, match="larger than 10 bytes"):
        load_yaml("a: 12345678901", max_bytes=10)


def test_broken_yaml_names_the_line():
    with pytest.raises(UnsafeYAML) as info:
        load_yaml("a: 1\nb: [1, 2\nc: 3\n")
    assert info.value.line == 3
    assert info.value.reason.startswith("broken YAML")


def test_tab_after_colon_like_js_yaml():
    text = "title:\tA+B Problem\ntag:\n  - basic\nnote: 'a:\tb'\n"
    with pytest.raises(UnsafeYAML):
        load_yaml(text)
    loaded = load_yaml(text, tab_after_colon=True)
    assert loaded.value == {"title": "A+B Problem", "tag": ["basic"], "note": "a:\tb"}
    assert loaded.tabs_fixed == 1


def test_fix_tabs_leaves_quoted_and_list_items_right():
    fixed, count = fix_tabs_after_colon("- name:\tx\nurl: 'http://a'\n")
    assert fixed == "- name: x\nurl: 'http://a'\n"
    assert count == 1
