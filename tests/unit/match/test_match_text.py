"""Decisions from text evidence (neardup.match.text, verify.decide_text) on pairs written for the test:
a text quoted beside a block of its own, an abridged telling, a template's subject replaced alike,
another session of one meeting, and the spans ``compare`` shows."""

from __future__ import annotations

import random

from dedup_synth import article

from neardup.match import MatchConfig, compare_texts
from neardup.match.explain import added_spans

NOTICE = (
    "市气象台今天发布寒潮蓝色预警，预计明天夜间起全市气温将下降八到十度，最低气温降至零下五度左右，"
    "北部山区伴有四到五级偏北风。气象部门提醒市民及时添衣保暖，农业设施做好防风加固，"
    "出行注意交通安全，老人和儿童尽量减少外出。"
)
OWN = (
    "记者随后走访了城区几家供暖单位。热力公司负责人介绍，全部锅炉已经完成检修，储煤可以满足二十天用量，"
    "抢修队伍实行二十四小时值班。社区工作人员正在逐户排查独居老人家中的取暖情况，发现问题当场登记，"
    "并协调物业在当天处理完毕。部分菜市场也增加了蔬菜储备，价格总体保持平稳。交通部门表示，"
    "除雪车辆和融雪物资已经提前部署到主要路段，地铁和公交将视降雪情况延长运营时间，请市民关注官方发布。"
)


def test_a_text_quoted_beside_a_block_of_its_own_is_related_not_merged() -> None:
    # a report that frames the notice and adds its own reporting
    report = (
        "本报记者连日来在多个街道采访了解到，面对这次降温过程，供暖、交通、商业和社区各方面已经提前做好准备，"
        "多数市民表示心里有底。" + NOTICE + OWN
    )
    ev = compare_texts(NOTICE, report)
    assert ev.kind == "partial"
    assert not ev.is_duplicate
    # the same text is a duplicate for a corpus: the notice adds nothing to the report
    assert compare_texts(NOTICE, report, MatchConfig(profile="corpus")).kind == "contained"


def test_a_copy_cut_at_the_end_is_contained_in_the_full_text() -> None:
    assert compare_texts(NOTICE, NOTICE + OWN).kind == "contained"


def test_an_abridged_telling_with_details_scattered_through_the_fuller_is_contained() -> None:
    parts = [
        "国务院总理今天上午主持召开国务院常务会议，部署进一步做好稳就业工作。",
        "会议指出，就业是最大的民生，要把稳就业摆在更加突出的位置。",
        "会议确定，对吸纳高校毕业生的中小企业给予一次性扩岗补助。",
        "会议要求，各地要加快发放失业保险金，确保应发尽发。",
        "会议还研究了其他事项。",
    ]
    details = [
        "会议听取了人力资源社会保障部关于前一阶段工作的汇报。",
        "今年以来城镇新增就业保持稳定，但结构性矛盾仍然突出。",
        "补助标准按照每招用一人一千五百元执行，政策实施到年底。",
        "对困难人员实行分类帮扶，开发一批公益性岗位兜底安置。",
    ]
    short = "".join(parts)
    full = "".join(p + (details[i] if i < len(details) else "") for i, p in enumerate(parts))
    ev = compare_texts(short, full)
    assert ev.kind == "contained"
    assert ev.adds is not None and ev.adds[1] == 0 < ev.adds[0]  # the broadcast adds nothing


EDITION = (
    "由中央文献出版社翻译出版的《治国理政论述摘编》英文版近日出版发行。该书英文版的出版发行，"
    "对于国外读者深入了解新时代中国的发展理念和实践具有重要意义。全书共分十二个专题，"
    "收入重要论述四百余段，由中央党史和文献研究院编辑。"
)


def test_a_templates_subject_replaced_alike_in_two_places_is_another_story() -> None:
    other = EDITION.replace("英文版", "法文版").replace("由中央", "继英文版之后，由中央")
    assert compare_texts(EDITION, other).kind == "unique"  # a template, reported only when asked
    assert compare_texts(EDITION, other, MatchConfig(report_templates=True)).kind == "template"
    # a corrected figure replaced in two places is an edit, not another subject
    fixed = EDITION.replace("四百余段", "五百余段").replace("十二个专题", "十三个专题")
    assert compare_texts(EDITION, fixed).is_duplicate


def test_typos_scattered_through_a_repost_are_edits_not_text_of_its_own() -> None:
    # two look-alike characters close together every 25 characters (a fifth of the text changed
    # to the reader's eye), as reposts that went through a few sites carry them
    text = NOTICE + OWN
    chars = list(text)
    look_alikes = "己已巳戊戌戍末未土士日曰"
    for n, p in enumerate(range(10, len(chars) - 10, 25)):
        for q in (p, p + 4):
            chars[q] = look_alikes[(2 * n + q) % len(look_alikes)]
    repost = "".join(chars)
    assert compare_texts(text, repost).kind == "near"
    # counted as added, the substituted characters make them two texts
    assert not compare_texts(text, repost, MatchConfig(scattered_edits=0)).is_duplicate
    # a template's subject replaced alike among a few typos is still another story
    other = EDITION.replace("英文版", "法文版").replace("由中央", "继英文版之后，由中央")
    other = other.replace("读者", "读着").replace("实践", "时践")
    assert not compare_texts(EDITION, other).is_duplicate


def test_another_session_of_one_meeting_is_another_occasion_even_when_the_date_holds_its_number() -> None:
    notice = (
        "全国政协十四届三次会议将于3月4日下午3时在北京开幕，全国政协主席将作常委会工作报告。届时，"
        "中央广播电视总台综合频道、新闻频道、中文国际频道将进行现场直播，中央重点新媒体平台将同步转播。"
    )
    next_year = notice.replace("三次会议", "四次会议")
    cfg = MatchConfig(report_templates=True)
    assert compare_texts(notice, next_year, cfg).kind == "template"
    assert compare_texts(notice, next_year, MatchConfig(profile="corpus")).is_duplicate


def test_added_spans_name_what_each_text_adds() -> None:
    assert added_spans(NOTICE, NOTICE + OWN) == []
    spans = added_spans(NOTICE + OWN, NOTICE)
    assert len(spans) == 1 and spans[0].startswith("记者随后走访了城区几家供暖单位")


PARENT = (
    "The San Francisco Bay area media is reporting tonight that the Detroit Red Wings beat the\n"
    "Toronto Maple Leafs 6-3. Can someone who is not part of the media conspiracy against the Leafs\n"
    "tell me how the game really went? If the Leafs really lost, how many penalties did whichever\n"
    "biased ref was at the game have to call against the Leafs to let the Red Wings win? I expected\n"
    "a shutout for Potvin, a hat trick for Andreychuk and a goal and three assists for Gilmour.\n"
)


def _reply(own: str) -> str:
    quoted = "".join(f"> {line}\n" for line in PARENT.splitlines())
    return f"someone@example.org writes:\n\n{quoted}\n{own}\n"


def test_two_replies_quoting_one_message_are_two_documents_not_one_removed_for_the_other() -> None:
    """Both quote what they share: each reply is what it writes, so the shorter reply's own line is
    text the longer does not hold, not an edit of it."""
    short = _reply("Good comeback. Your quick wit and intelligence continues to amaze everyone here.")
    long = _reply(
        "Close, but no banana. The Murky News said the coach will be the new quarterback and I am\n"
        "still trying to work out whether he is kidding or not. If I find a few pints this week I will\n"
        "go back and check what the columnist said in his column; that ought to be worth a few laughs."
    )
    ev = compare_texts(short, long)
    assert ev.kind == "partial", ev
    assert not ev.is_duplicate
    # the same reply posted twice (both quote the message, own text alike) is still one document
    assert compare_texts(short, short.replace("everyone here", "everyone")).kind in ("near", "content")


def test_a_reply_quoting_a_replys_own_words_is_another_document_not_its_fuller_copy() -> None:
    """The second reply quotes the first whole (its quote of the message and its own words) and
    writes a paragraph of its own: a reply to that reply, not a fuller copy that supersedes it."""
    first = _reply(
        "Close, but no banana. The Murky News said the coach will be the new quarterback and I am\n"
        "still trying to work out whether he is kidding or not."
    )
    quoted = "".join(f"> {line}\n" for line in first.splitlines())
    answer = (
        "I read the same column on Sunday and the writer was not kidding at all: he has a source\n"
        "inside the front office who has been right about every trade this season, so believe it."
    )
    second = f"other@example.org writes:\n\n{quoted}\n{answer}\n"
    ev = compare_texts(first, second)
    assert ev.kind == "partial", ev
    assert not ev.is_duplicate


def test_typos_too_close_for_a_window_are_aligned_and_a_reworded_sentence_is_not() -> None:
    from neardup.match.signature import signatures
    from neardup.match.text import text_evidence

    # clusters of five changed characters in sixteen (two of them side by side): no window of
    # eight covers the text between them, so each cluster leaves a run uncovered on both sides
    text = NOTICE + OWN
    chars = list(text)
    look_alikes = "己已巳戊戌戍末未土士日曰"
    changed = 0
    for n, p in enumerate(range(12, len(chars) - 12, 40)):
        for q in (p, p + 4, p + 5, p + 10, p + 15):
            chars[q] = look_alikes[(3 * n + q) % len(look_alikes)]
            changed += 1
    repost = "".join(chars)
    s = signatures([text, repost])
    ev = text_evidence(s.profile(0), s.profile(1), 8, 4)
    # only the changed characters are left uncovered (a few more where the path of the
    # alignment is not unique), not the runs around them
    assert ev[1] <= changed + 10 and ev[0] <= changed + 10
    assert compare_texts(text, repost).kind == "near"
    # a sentence said another way shares few characters in order with the original: its own text
    reworded = text.replace(
        "气象部门提醒市民及时添衣保暖，农业设施做好防风加固，",
        "专家建议大家注意防寒，种植户要检查大棚是否牢固，",
    )
    s = signatures([text, reworded])
    ev = text_evidence(s.profile(0), s.profile(1), 8, 4)
    assert ev[1] >= 20


def test_a_cut_copy_that_gained_a_sites_lines_is_contained_and_a_short_notice_is_not() -> None:
    full = NOTICE + OWN
    # lines a site adds that read as no credit line (strip_credits leaves them)
    cut = (
        "滨海新闻网讯\n"
        + NOTICE
        + "\n更多精彩内容尽在滨海新闻网。\n"
        + OWN[:85]
        + "\n网友热议：这次寒潮来得真快\n（滨海新闻网综合报道）"
    )
    # the copy adds only short lines, the full text a passage: the full text is kept
    assert compare_texts(full, cut).kind == "contained"
    # the same lines counted as text of the copy's own: both add something, a partial copy
    assert compare_texts(full, cut, MatchConfig(scattered_run=0)).kind == "partial"
    # a short notice told again inside a longer report (two sentences of its own) shares too
    # little to be its copy: related, unless the rule is asked to read such short texts too
    notice = NOTICE[:50] + "届时请广大市民留意最新天气预报。" + NOTICE[50:] + "本报将持续关注此次寒潮动态。"
    report = NOTICE + OWN[:95]
    assert compare_texts(report, notice).kind == "partial"
    assert compare_texts(report, notice, MatchConfig(scattered_shared=0)).kind == "contained"


def test_the_next_meeting_of_a_series_is_another_occasion_however_much_its_notice_adds() -> None:
    short = (
        "市人大常委会第五十九次主任会议2日上午在市政府会议中心举行。王明主任主持会议。会议决定，"
        "市人大常委会第二十次会议2月4日在本市举行。主任会议建议，常委会第二十次会议审议代表资格审查"
        "委员会关于个别代表的代表资格的报告。主任会议上，常委会秘书长李华就常委会第二十次会议议程草案"
        "和日程安排作了汇报，代表资格审查委员会负责人就有关议题作了汇报。"
    )
    fuller = (
        short.replace("第五十九次", "第六十一次")
        .replace("2日上午", "10日上午")
        .replace("第二十次", "第二十一次")
        .replace("2月4日", "2月25日至26日")
        .replace(
            "审议代表资格审查",
            "审议社会救助条例草案，审议市政府关于提请审议城市供水条例修正草案的议案、关于提请审议"
            "消防救援条例草案的议案，审议常委会工作报告稿，审议主任会议关于提请审议市人大第四次会议"
            "议程草案的议案，审议常委会关于法规清理工作情况和有关法规处理意见的报告稿，审议代表资格审查",
        )
    )
    cfg = MatchConfig(report_templates=True)
    assert compare_texts(fuller, short, cfg).kind == "template"
    # read as text alone (the corpus profile), the short notice is contained in the fuller one
    assert compare_texts(fuller, short, MatchConfig(profile="corpus")).kind == "contained"
    # a fuller copy's own dateline is no other occasion: the broadcast's abridgment stays contained
    paper = "本报北京2月10日电 " + fuller + "会议还研究了其他事项。常委会副主任张强、刘伟出席会议。"
    assert compare_texts(paper, fuller).kind in ("near", "contained")


def test_an_announced_visit_is_not_a_copy_of_the_report_of_it() -> None:
    from neardup.match.signature import signatures
    from neardup.match.text import _PHASE_FIRST, _PHASE_SECOND, _QUOTED

    # the kernels' values of the phase markers' characters are the signature's
    markers = ["将于", "将在", "将赴", "将出", "将访", "将对", "将率", "离开", "离京", "返抵", "抵达"]
    values = [[int(v) & ~_QUOTED & 0x8FFFFFFF for v in signatures([m]).profile(0)] for m in markers]
    assert values == [[int(f), int(s)] for f, s in zip(_PHASE_FIRST, _PHASE_SECOND, strict=True)]
    lead = "应东海共和国总统邀请，国家主席王明"
    visit = "对东海共和国进行国事访问。这是王明首次访问东海共和国，两国将签署经贸、人文等领域合作文件。"
    announced = lead + "将于5月5日至8日" + visit
    reported = (
        "5月5日上午，"
        + lead
        + "乘专机离开北京，开始"
        + visit.replace("将签署", "签署了")
        + "陪同王明出访的有外交部部长李华等。当地时间5日下午，王明抵达东海共和国首都，受到热烈欢迎。"
        + "东海共和国总统在机场举行隆重仪式，两国元首举行了会谈，就双边关系和共同关心的问题深入交换意见。"
    )
    assert compare_texts(reported, announced, MatchConfig(report_templates=True)).kind == "template"
    # read as text alone the notice is contained in the report
    assert compare_texts(reported, announced, MatchConfig(profile="corpus")).kind == "contained"
    # the arrival report says what the delegation will do next (将出席); the notice's own 将于 is
    # still another phase
    arrival = reported.replace("受到热烈欢迎。", "受到热烈欢迎，将出席两国建交50周年庆祝活动。")
    assert compare_texts(arrival, announced, MatchConfig(report_templates=True)).kind == "template"


def test_a_departure_is_not_a_copy_of_the_arrival_report() -> None:
    lead = "应东海共和国总统邀请，国务院总理王明"
    trip = (
        "出席第25次中国－东海国家领导人会议、第25次东海国家与中日韩领导人会议和第17届东海峰会，"
        "并对东海共和国进行正式访问。外交部部长李华、国家发展改革委主任张强等陪同人员"
    )
    departure = "11月8日下午，" + lead + "乘专机离开北京，赴东海共和国" + trip + "同机离京。"
    arrival = (
        "当地时间11月8日晚，"
        + lead
        + "乘专机抵达东海共和国首都，"
        + trip
        + "同机抵达。东海共和国副总理到机场迎接，并为王明举行欢迎仪式。王明表示，中国同东海共和国是好邻居、"
        + "好朋友、好伙伴，愿同东海方面一道，推动两国全面战略合作伙伴关系不断向前发展。"
        + "双方还签署了经贸、人文等领域合作文件。"
    )
    assert compare_texts(arrival, departure, MatchConfig(report_templates=True)).kind == "template"
    assert compare_texts(arrival, departure, MatchConfig(profile="corpus")).kind == "contained"


def test_the_reactions_to_a_speech_are_not_a_copy_of_its_report() -> None:
    from neardup.match.signature import signatures
    from neardup.match.text import _GENRE_FIRST, _GENRE_SECOND, _QUOTED

    values = [int(v) & ~_QUOTED & 0x8FFFFFFF for v in signatures(["反响"]).profile(0)]
    assert values == [int(_GENRE_FIRST[0]), int(_GENRE_SECOND[0])]
    speech = (
        "王明在全国教育大会上发表重要讲话强调，到2035年建成教育强国，是全面推进强国建设的先导任务、坚实基础、"
        "战略支撑，必须朝着既定目标扎实迈进。王明指出，要坚持把立德树人作为根本任务，健全德智体美劳全面培养"
        "体系，加快补齐体育、美育、劳动教育短板。"
    )
    report = (
        speech
        + "王明强调，要以科技发展、国家战略需求为牵引，着眼提高创新能力，优化高等教育布局，完善高校学科设置"
        "调整机制和人才培养模式，加强基础学科、新兴学科、交叉学科建设和拔尖人才培养。要优化区域教育资源"
        "配置，推动义务教育优质均衡发展，逐步缩小城乡、区域、校际、群体差距。会议由李华主持，张强作总结讲话。"
    )
    reactions = (
        "王明的重要讲话在全国教育工作者中引发热烈反响。" + speech + "大家表示，要认真学习领会讲话精神。"
    )
    assert compare_texts(report, reactions).kind == "partial"
    assert compare_texts(report, reactions, MatchConfig(profile="corpus")).kind == "contained"
    # a report told again with a line of its own, no reactions in it, is the report's copy
    again = "本台消息：" + speech + "大家表示，要认真学习领会讲话精神。"
    assert compare_texts(report, again).kind == "contained"


def test_a_full_name_replaced_everywhere_is_a_template_beside_other_differences() -> None:
    story = (
        "Delays at the airport were blamed on the late arrival of the visiting delegation, {name} said. "
        "Central to the problem was that the motorcade took the best part of an hour to leave. "
        "{name} told reporters that the airline would review its schedule for the rest of the year. "
        "Passengers on three flights were offered hotel rooms and meal vouchers while they waited. "
        "The airline said it was doing research into the possibilities, {name} added. "
        "{other} Officials expect the review to be published before the end of the summer season. "
        "The airport handles more than forty million passengers a year and expects that number to grow. "
        "A spokesman for the airport operator said lessons would be learned from the events of the day. "
        "Unions representing ground staff said their members had worked long hours to clear the backlog. "
        "Travel agents reported a rise in calls from customers asking about their rights to compensation. "
        "The regulator said it would write to the airline to ask how the delays had been handled."
    )
    first = story.format(
        name="Michael Lamberty", other="About two hundred people missed connecting flights to other cities."
    )
    second = story.format(
        name="Chris Prescott", other="Twenty-one thousand people lost their lives in the floods last winter."
    )
    assert compare_texts(first, second, MatchConfig(report_templates=True)).kind == "template"
    # the corpus profile reads it as the same text
    assert compare_texts(first, second, MatchConfig(profile="corpus")).kind == "near"


def test_a_guest_named_again_and_again_is_a_template_beside_other_differences() -> None:
    # a welcome ceremony told of another guest: the name (two characters or more, no digits)
    # replaced alike in three places, next to the full name, the country and the delegation
    story = (
        "本台消息：国家主席今天上午在北京举行仪式，欢迎{country}总统{full}来华进行国事访问。"
        "广场上鸣放礼炮二十一响，军乐队奏两国国歌。"
        "陪同{name}访华的有外交部长、{team}等政府官员。"
        "{name}在国家主席陪同下检阅了三军仪仗队，两国元首随后回到检阅台观看分列式。"
        "{name}此次来华是应国家主席邀请出席国际合作论坛并进行国事访问。"
        "欢迎仪式结束后，两国元首举行会谈，就双边关系和共同关心的国际地区问题深入交换意见。"
    )
    first = story.format(country="甲国", full="阿卜杜拉·哈桑", name="哈桑", team="财政部长")
    second = story.format(country="乙国", full="卡洛斯·门多萨", name="门多萨", team="驻华大使")
    assert compare_texts(first, second, MatchConfig(report_templates=True)).kind == "template"
    # the same report with its typos and look-alike characters is still one document
    typo = first.replace("礼炮", "礼泡").replace("检阅", "捡阅", 1).replace("交换", "交涣")
    assert compare_texts(first, typo).kind == "near"


def test_a_person_named_in_full_then_by_surname_is_a_templates_subject_among_words() -> None:
    story = (
        "The festival director {full} said the line-up would be announced next week in {country}. "
        "More than three hundred films have been submitted for the competition this year, organisers said. "
        "{last} added that the opening night would feature a world premiere from a first-time director. "
        "Ticket sales have been strong, with several screenings already sold out across the city. "
        "The jury will be chaired by an actor who has won two awards at the festival in the past. "
        "{last} said the festival hoped to attract a younger audience with a new programme of events."
    )
    first = story.format(full="Dieter Kosslick", last="Kosslick", country="France")
    second = story.format(full="Serena Cheney", last="Cheney", country="Sweden")
    assert compare_texts(first, second, MatchConfig(report_templates=True)).kind == "template"


def test_an_english_story_told_of_another_year_is_a_template_and_a_dateline_year_is_not() -> None:
    story = (
        "The festival opened on Friday with a record number of films in competition for the {y} prize. "
        "Organisers said more than four hundred thousand tickets had been sold before the first screening. "
        "The jury, chaired by a veteran director, will announce the winners at a ceremony on the last night. "
        "Critics said the {y} programme was the strongest the festival had assembled in a decade of growth. "
        "Hotels across the city reported that rooms had been fully booked for the whole of the fortnight. "
        "The festival, founded in 1951, has become one of the most important events in the film calendar."
    )
    config = MatchConfig(report_templates=True)
    assert compare_texts(story.format(y=2004), story.format(y=2006), config).kind == "template"
    # a repost with a dateline of its own (its year) and the last sentence cut is the same story
    repost = "BERLIN, 12 February 2005 (Reuters) - " + story.format(y=2004).rsplit(" The festival,", 1)[0]
    assert compare_texts(story.format(y=2004), repost, config).kind in ("near", "contained")


def test_a_copy_that_adds_next_to_nothing_beside_a_text_with_an_end_of_its_own_is_near() -> None:
    rng = random.Random(11)
    body = article(rng, 10)
    # the paper's copy: a dateline and a closing sentence of its own; the broadcast's: two words
    paper = (
        "新华社北京2月7日电（记者王明）"
        + body
        + "双方还就共同关心的国际和地区问题交换了意见，一致同意保持密切沟通。"
    )
    broadcast = body.replace("。", "，今天。", 1)
    ev = compare_texts(paper, broadcast)
    adds_broadcast, adds_paper = ev.adds or (0, 0)  # the second text's, then the first's
    # more than near allows both sides, less than a fuller copy adds to a cut one
    assert adds_paper > 0.1 * len(paper) + 10 and adds_paper < 2 * adds_broadcast + 50
    assert ev.kind == "near"


def test_a_short_notice_sharing_one_sentence_with_a_report_is_not_its_copy() -> None:
    rng = random.Random(12)
    sentence = (
        "努力建设团结和谐、繁荣富裕、文明进步、安居乐业、生态良好的美好家园，奋力谱写中国式现代化的篇章。"
    )
    notice = "央视快评：" + sentence
    report = article(rng, 3) + sentence + article(rng, 3)
    assert 40 <= len(sentence) < MatchConfig().shared_min
    assert compare_texts(report, notice).kind not in ("near", "contained")
    assert compare_texts(report, notice, MatchConfig(shared_min=40)).kind == "contained"


def test_a_reply_quoting_with_a_colon_or_initials_is_a_reply_not_its_parents_fuller_copy() -> None:
    """News readers quote with ": " or the writer's initials ("MJM>") as well as "> ": the parent is
    not removed as contained in the reply that quotes it and answers."""
    answer = (
        "As I recall, you can click the button at the upper left of the window and choose another\n"
        "font there. There is also a preview that shows how the new size looks before you apply it,\n"
        "and the setting is kept for the next session once you save it in the dialog."
    )
    for mark in (": ", "MJM> ", "> "):
        quoted = "".join(f"{mark}{line}\n" for line in PARENT.splitlines())
        reply = f"someone@example.org wrote:\n{quoted}\n{answer}\n"
        ev = compare_texts(PARENT, reply)
        assert ev.kind == "partial", (mark, ev)
    # a line that merely starts with a colon-led emoticon or a word before ">" elsewhere is text
    assert compare_texts(PARENT, PARENT + "\n:-) thanks").kind in ("near", "content")


MARKET = (
    "Shares in London closed higher, with the FTSE 100 up 42 points at 7,512 as miners rallied. "
    "Anglo American rose 3.1% and Rio Tinto gained 2.4%, while BP slipped 0.8%. The pound was flat at "
    "$1.27. Analysts said hopes of lower interest rates had lifted sentiment, with trading volumes "
    "around 5.1 billion shares and the index still 3% below its record."
)


def test_another_days_figures_on_one_template_are_another_story_and_a_corrected_figure_is_not() -> None:
    """Most figures replaced, each in its place (another day's market report), name another
    occasion; one or two corrected figures are edits of one report."""
    other_day = (
        MARKET.replace("42 points at 7,512", "17 points at 7,529")
        .replace("3.1%", "1.2%")
        .replace("2.4%", "0.9%")
        .replace("0.8%", "0.3%")
        .replace("$1.27", "$1.28")
        .replace("5.1 billion", "4.6 billion")
    )
    assert not compare_texts(MARKET, other_day).is_duplicate
    assert compare_texts(MARKET, MARKET.replace("3.1%", "3.2%")).kind == "near"
    assert compare_texts(MARKET, MARKET.replace("3.1%", "3.2%").replace("$1.27", "$1.26")).kind == "near"


STORY = (
    "Shares in Tokyo rose on Monday after the central bank left its policy unchanged, and exporters "
    "led the gains as the yen weakened. Traders said the session was quiet, with volumes below the "
    "monthly average and most investors waiting for the trade figures. The bank said it would review "
    "its forecasts in March, when new data on wages and prices will be known."
)


def test_another_weekday_or_month_on_one_template_is_another_story() -> None:
    """A weekday or a month replaced in its place names another occasion, as a year does; a
    repost that writes "yesterday" for the day, or a new version dated another day of the month, is
    still a copy."""
    other = STORY.replace("Monday", "Tuesday")
    assert not compare_texts(STORY, other).is_duplicate
    assert not compare_texts(STORY, STORY.replace("March", "April")).is_duplicate
    assert compare_texts(STORY, STORY.replace("on Monday", "yesterday")).kind == "near"
    dated = STORY + " Updated 5 March."
    assert compare_texts(dated, dated.replace("5 March", "15 March")).is_duplicate


REPORT = (
    "今天，第十届全国少数民族传统体育运动会在郑州开幕。来自全国各地的七千多名运动员将在今天到本月十六日期间参加"
    "十七个竞赛项目的比赛。开幕式上，各代表团依次入场，观众席上掌声不断。组委会介绍，本届运动会的竞赛场馆全部"
    "在郑州市区，赛事安排紧凑有序。运动员们表示，能在家门口参加比赛感到非常自豪，一定赛出风格、赛出水平。"
)


def test_a_date_written_for_today_or_a_repeated_typo_is_an_edit_and_a_country_replaced_is_a_subject() -> None:
    """Edits a repost makes again and again are not a template's subject: 今天 written as the date
    (digits on one side only), a function character mistyped (的 -> 地, 在 -> 再); a place or a
    language replaced wherever it stands is (郑州 -> 洛阳, 法文版 -> 俄文版)."""
    assert compare_texts(REPORT, REPORT.replace("今天", "9月8日")).is_duplicate
    assert compare_texts(REPORT, REPORT.replace("的", "地", 3)).is_duplicate
    assert compare_texts(REPORT, REPORT.replace("在", "再", 2)).is_duplicate
    assert not compare_texts(REPORT, REPORT.replace("郑州", "洛阳")).is_duplicate
    book = "《习近平谈治国理政》第四卷法文版近日由外文出版社出版，面向海内外发行。法文版的出版发行，有助于国际社会深入了解中国。"
    assert not compare_texts(book, book.replace("法文版", "俄文版")).is_duplicate


def test_an_excerpt_in_reported_speech_is_the_speech_not_a_template_of_another_subject() -> None:
    """A speech and its excerpt told in reported speech differ in dozens of places (an attribution
    before each paragraph, 我们 dropped): the terms repeated among so many differences name no
    subject, so the two are one document; a place replaced in a few places is still a subject."""
    rng = random.Random(11)
    halves = [(article(rng, 3), article(rng, 3)) for _ in range(40)]
    speech = "各位代表：\n" + "\n".join(a + "我们要" + b for a, b in halves)
    excerpt = "\n".join("国务院总理在作政府工作报告时说，" + a + b for a, b in halves)
    ev = compare_texts(excerpt, speech)
    assert ev.kind == "near", ev
    assert not compare_texts(REPORT, REPORT.replace("郑州", "洛阳")).is_duplicate


def test_a_frame_shared_by_two_occasions_is_a_template_not_a_shared_passage() -> None:
    """Two notices that share a broadcast frame, each with its own date where the other has one, tell
    two occasions on one template: not a partial copy (reported as a template only when asked)."""
    frame = "届时，本台综合频道、新闻频道、中文国际频道和各外语频道将进行现场直播，网络平台、广播频率同步转播，欢迎广大观众收看收听。"
    opening = "本台消息：全国学术大会将于3月5日上午9时在北京开幕，大会主席将作工作报告。" + frame
    plenary = "本台消息：3月8日下午3时，全国学术大会第二次全体会议将在北京举行，秘书长将作财务报告。" + frame
    assert compare_texts(opening, plenary).kind == "unique"
    assert compare_texts(opening, plenary, MatchConfig(report_templates=True)).kind == "template"


DOCS = (
    "学会第十三届理事会第三次会议选举办法（草案）、学会第十三届理事会关于常务理事会工作报告的决议（草案）、"
    "学会第十三届理事会关于会员发展情况报告的决议（草案）、学会第十三届理事会提案委员会关于十三届三次会议提案审查情况的报告（草案）、"
    "学会第十三届理事会补选副会长候选人名单（草案）、学会第十三届理事会第三次会议总结决议（草案）和学会章程修正案（草案）"
)
CHAIRS = (
    "新华社北京5月26日电 学会第十三届理事会第三十七次主席会议26日下午在北京召开。会长王明主持会议。\n"
    "会议审议通过了"
    + DOCS
    + "。会议决定将上述文件草案提请5月27日上午召开的学会常务理事会第十一次会议审议。\n"
    "王明指出，大会开幕以来，理事们按照预定议程认真参加会议，围绕学科建设和人才培养提出了许多意见和建议，会议开得务实高效。"
)


def test_leads_that_name_two_sessions_are_two_occasions_not_one_report_contained_in_another() -> None:
    """The chairmen's meeting that sends the drafts on and the committee's session that passes them
    share the list of drafts, and the chairmen's report names the session as its next step, so
    neither holds a number of its own the other lacks anywhere; their leads name two meetings on
    two days: two occasions, not a report and its abridgment. A broadcast's abridgment that dates
    its telling (今天（5月26日）) against the wire's dateline is still the same report."""
    committee = (
        "新华社北京5月27日电 学会第十三届理事会常务理事会第十一次会议27日上午在北京举行。会长王明主持会议。\n"
        "会议通过了" + DOCS + "。会议决定将上述文件草案提交5月27日下午举行的闭幕会审议。"
    )
    assert compare_texts(CHAIRS, committee).kind == "unique"
    assert compare_texts(CHAIRS, committee, MatchConfig(report_templates=True)).kind == "template"
    broadcast = (
        "本台消息：今天（5月26日）下午，学会第十三届理事会第三十七次主席会议在北京召开。会长王明主持会议。\n"
        "会议审议通过了"
        + DOCS
        + "。会议决定将上述文件草案提请5月27日上午召开的学会常务理事会第十一次会议审议。"
    )
    assert compare_texts(CHAIRS, broadcast).kind == "contained"


def test_a_letters_echo_in_its_readers_words_is_not_a_copy_of_the_letter() -> None:
    """The shorter text restates a letter as its readers' pledge and tells their reaction in its own
    words (倍受鼓舞), which the letter's report never holds: two documents of one event. Without the
    reaction it is the report's abridgment."""
    from neardup.match.signature import signatures
    from neardup.match.text import _QUOTED, _REACTION_FIRST, _REACTION_SECOND

    # the kernels' values of the reaction markers' characters are the signature's
    values = [
        [int(v) & ~_QUOTED & 0x8FFFFFFF for v in signatures([m]).profile(0)] for m in ("鼓舞", "界表", "振奋")
    ]
    assert values == [[int(f), int(s)] for f, s in zip(_REACTION_FIRST, _REACTION_SECOND, strict=True)]
    lead = "国家主席王明5月23日给参与东海一号卫星研制的东海大学师生代表回信，对他们予以亲切勉励。"
    pledge = "继续传承爱国爱校的优良传统，积极融入国家发展大局，积极参与区域科技建设"
    letter = (
        lead + "王明在回信中说，从字里行间，我感受到了你们投身国家科技事业和航天强国建设的热情与担当。"
        "欣闻你们参与研制的卫星发射成功，谨向大家致以热烈的祝贺！王明指出，近年来，东海深化与各地在航天等领域的"
        "科技合作，取得了可喜成果。希望你们" + pledge + "，为国家科技事业作出新的贡献。"
    )
    echo = lead + "东海大学师生表示，收到回信倍受鼓舞，将" + pledge + "。"
    assert not compare_texts(letter, echo).is_duplicate
    assert compare_texts(letter, echo, MatchConfig(profile="corpus")).kind == "contained"
    assert compare_texts(letter, lead + "他们将" + pledge + "。").kind == "contained"


def test_a_leaders_title_repeated_through_one_funeral_is_no_shared_passage() -> None:
    """The reports of one funeral name the deceased by the same 60-odd characters of titles ending
    in 同志: a designation, not a passage of content, so the death notice and the cremation report
    are not reported as sharing one. A passage that only closes with a line naming 同志 (有关负责同志
    出席会议) is still one."""
    title = (
        "中国共产党的优秀党员，久经考验的忠诚的共产主义战士，我国科技战线的杰出领导人，中国科学院原院长，"
        "中国人民政治协商会议第九届全国委员会副主席王明同志"
    )
    death = "新华社北京3月4日电 " + title + "，因病医治无效，于2026年3月4日在北京逝世，享年95岁。"
    funeral = (
        "新华社北京3月10日电 " + title + "的遗体，10日在北京八宝山革命公墓火化。王明同志病重期间和逝世后，"
        "有关领导同志前往医院看望或通过各种形式对王明同志逝世表示沉痛哀悼并向其亲属表示深切慰问。"
        "10日上午，八宝山革命公墓礼堂庄严肃穆，哀乐低回。正厅上方悬挂着黑底白字的横幅，横幅下方是王明同志的遗像。"
    )
    ev = compare_texts(death, funeral)
    assert ev.kind == "unique" and ev.passage == 0, ev
    meeting = (
        "会议强调，要推动两岸交流合作，深化两岸融合发展，让台湾同胞共享现代化发展机遇和成果，"
        "为台湾青年来大陆追梦圆梦创造更好条件。王明主持会议。中央有关部门和各地有关负责同志出席会议。"
    )
    report = (
        "本台消息：年度对台工作会议25日至26日在京召开。" + meeting + "与会代表围绕重点任务进行了深入讨论。"
    )
    digest = (
        "本台消息：铁路开通运营以来，客货运量稳定增长。"
        + meeting
        + "最新数据显示，铁路已累计发送旅客超3000万人次。"
    )
    assert compare_texts(report, digest).kind == "partial"


def test_an_institution_replaced_alike_by_a_longer_one_is_a_template_not_a_typo() -> None:
    # one resolution told of two bodies: 法 -> 检察 (one character for two) wherever the body is
    # named, beside the head of each; a typo or a look-alike changes one character for one
    resolution = (
        "（某年某月某日某省人民代表大会第五次会议通过）某省人民代表大会第五次会议听取和审议了省高级人民{body}{head}所作的工作报告。"
        "会议充分肯定省高级人民{body}的工作，同意报告提出的下一阶段工作安排，决定批准这个报告。"
        "会议要求，省高级人民{body}要坚持以人民为中心，忠实履行宪法法律赋予的职责，着力维护社会公平正义，"
        "持续深化体制改革，大力加强队伍建设，{own}为全省经济社会发展提供有力保障。"
    )
    court = resolution.format(body="法院", head="院长李明", own="加快建设智慧法院，")
    procuracy = resolution.format(body="检察院", head="检察长王强", own="推动各项检察工作全面协调充分发展，")
    assert compare_texts(court, procuracy, MatchConfig(report_templates=True)).kind == "template"
    assert compare_texts(court, court.replace("维护", "维户", 1)).kind == "near"


def test_a_brief_held_inside_a_round_up_several_times_its_length_is_related_not_contained() -> None:
    # a short news brief, and a holiday round-up that holds it in three pieces (two clauses inserted)
    # beside a block of reporting of its own more than three times the brief's length
    brief = (
        "本报北京五月五日电  文化和旅游部发布的数据显示：假期全国共计接待国内游客一亿一千五百万人次，"
        "实现国内旅游收入四百七十五亿元。五日当天，全国接待国内游客一千零二十三万人次，实现国内旅游收入四十三亿元。"
        "各地景区严格落实限量、预约、错峰要求，游客在景区内保持安全距离，假期旅游市场总体平稳有序。"
    )
    held = brief.replace("显示：", "显示，在疫情防控常态化条件下，").replace(
        "五日当天，", "据测算，五日当天，"
    )
    own = OWN + OWN.replace("记者", "本报记者").replace("市民", "游客") + NOTICE[::-1]
    assert compare_texts(brief, NOTICE + held + own).kind == "partial"
    # with a block of its own under three times the brief's length, the same three pieces are the
    # fuller copy of an abridged telling
    assert compare_texts(brief, NOTICE + held + OWN).kind == "contained"


def test_two_notices_of_one_frame_whose_leads_name_two_days_are_a_template_not_a_shared_passage() -> None:
    # each notice its own lead (another event, another day), then the same broadcast frame
    frame = (
        "届时，省广播电视台综合频道、新闻频道、公共频道、国际频道，省人民广播电台新闻广播、交通广播、"
        "经济广播等频率将进行现场直播；省台新闻客户端、省新闻网等重点新媒体平台将同步转播。"
    )
    opening = (
        "全省第十四次人民代表大会第三次会议将于16日上午9时在省人民会堂开幕，省长将作政府工作报告。" + frame
    )
    closing = (
        "全省第十四次人民代表大会第三次会议将于23日下午3时在省人民会堂举行闭幕会，省委书记将发表讲话。"
        + frame
    )
    cfg = MatchConfig(report_templates=True)
    assert compare_texts(opening, closing, cfg).kind == "template"
    # a text of another day that quotes the other, in quotation marks, shares a passage of content
    quoting = "全省第十四次人民代表大会第三次会议23日闭幕。本报此前的报道说：“" + NOTICE + "”"
    assert (
        compare_texts("全省第十四次人民代表大会第三次会议16日开幕。" + NOTICE, quoting, cfg).kind == "partial"
    )
    # a commentary of another day that reuses a report's paragraphs beside its own still shares them
    report = "全省第十四次人民代表大会第三次会议16日上午在省人民会堂开幕。" + NOTICE + OWN
    commentary = "23日，本报评论员文章指出，" + NOTICE + OWN[::-1]
    assert compare_texts(report, commentary, cfg).kind == "partial"


def test_a_pronoun_rewritten_as_the_name_it_stands_for_is_an_edit_not_a_subject() -> None:
    # 他 -> 习近平 in two places: a rewrite of one report (a function character replaced by a name),
    # where a subject replaced alike names another story (法 -> 检察: the institution test above)
    report = (
        "国家主席今天在人民大会堂会见了来访的外国代表团。{x}指出，双方要加强各领域务实合作，推动两国关系不断向前发展。"
        "会见中，{x}还就共同关心的国际和地区问题同客人深入交换了意见。代表团团长表示，愿同中方一道努力，深化传统友谊。"
        "会见后，双方共同见证了多项合作文件的签署。外交部有关负责人参加了会见。"
    )
    cfg = MatchConfig(report_templates=True)
    assert compare_texts(report.format(x="他"), report.format(x="王明远"), cfg).kind == "near"


# written for this test: a report, and the same report as a rewriting site ("伪原创") spins it,
# each of three verbs or adverbs swapped for another wherever it stands
SPUN_SOURCE = (
    "省政府今天召开常务会议，研究部署今年下半年安全生产工作。会议指出，上半年全省安全生产形势总体平稳，"
    "事故起数和死亡人数实现双下降，但一些地方和企业仍然存在思想麻痹、责任悬空等问题。会议强调，"
    "各地要不断压实企业主体责任，把隐患排查整治作为当前工作的重中之重，对矿山、危化品、建筑施工等重点行业"
    "进行全面检查，发现问题当场交办、限期整改。会议要求，各级应急管理部门要严格执法，对非法违法行为"
    "保持高压态势，典型案例一律公开曝光。会议还研究了防汛工作，要求各地密切关注天气变化，及时发布预警信息，"
    "提前转移危险区域群众，确保安全度汛。会议表示，要不断提升基层应急处置能力，加快补齐救援装备短板，"
    "对重点乡镇和村庄进行专项督导，推动各项措施落地见效。"
)


def test_a_report_spun_with_other_verbs_wherever_they_stand_is_its_sources_copy() -> None:
    spun = SPUN_SOURCE.replace("不断", "持续").replace("进行", "展开").replace("表示", "称")
    cfg = MatchConfig(report_templates=True)
    assert compare_texts(SPUN_SOURCE, spun, cfg).kind == "near"
    # a title replaced wherever it stands, or verbs that tell opposite events (上涨 -> 下跌), are
    # still another story
    market = (
        "今天沪深两市股指{x}，成交金额与上周基本持平。" + SPUN_SOURCE + "收盘时，煤炭板块{x}超过百分之三。"
    )
    assert compare_texts(market.format(x="上涨"), market.format(x="下跌"), cfg).kind == "template"
    session = "大会今天在省会开幕。{x}主持开幕式并讲话，{x}强调要统一思想。" + SPUN_SOURCE
    assert compare_texts(session.format(x="省长"), session.format(x="省委书记"), cfg).kind == "template"


def test_a_word_replaced_in_a_texts_last_few_tokens_is_read_as_replaced() -> None:
    # the last place of the opposite verbs is followed by three tokens only (超过 3%: no window
    # reaches past the end), so the runs that end both texts are aligned on fewer tokens in common
    cfg = MatchConfig(report_templates=True)
    market = "今天沪深两市股指{x}，成交金额与上周基本持平。" + SPUN_SOURCE + "收盘时，煤炭板块{x}超过3%。"
    assert compare_texts(market.format(x="上涨"), market.format(x="下跌"), cfg).kind == "template"
    # a copy that ends with other credits stays a copy
    ending = SPUN_SOURCE + "（记者{x}）"
    assert compare_texts(ending.format(x="张明远"), ending.format(x="李晓华"), cfg).kind in (
        "near",
        "content",
    )


# written for this test: a market report, and the next day's on the same template
CHIP_REPORT = (
    "Shares in the chip maker fell sharply in early trading after it warned that sales would miss "
    "forecasts for the third quarter in a row. By {time} GMT on {day} the shares were down {drop}% at "
    "{price} pence, valuing the company at about {value}m. The firm blamed weak demand from phone makers "
    "in Asia and said it would cut costs by closing {n} of its factories in Scotland next year. "
    "Analysts said the warning was worse than expected and that the company faced a difficult year, "
    "although its balance sheet remained strong and its dividend of {div}p was not at risk. The chief executive "
    "said the board remained confident in the long term strategy and expected demand to recover once "
    "phone makers had cleared their stocks of unsold handsets, which he said would take some months."
)


def test_the_next_days_report_on_one_template_is_a_template_and_a_faqs_new_version_is_its_copy() -> None:
    cfg = MatchConfig(report_templates=True)
    monday = CHIP_REPORT.format(
        time="1200", day="Monday", drop="16.2", price="235.75", value="138", n="two", div="4.5"
    )
    tuesday = CHIP_REPORT.format(
        time="1321", day="Tuesday", drop="18.8", price="260.3", value="152", n="three", div="5.1"
    )
    # the weekday stands in a run of the day's figures (1200 GMT on Monday the shares were down
    # 16.2%), and figures are replaced elsewhere: another day's report
    assert compare_texts(monday, tuesday, cfg).kind == "template"
    # a FAQ's new version: the date line and the version number replaced, nothing else
    faq = (
        "Frequently asked questions about the city's recycling scheme. Last modified: {date}. Version: {v}. "
    )
    body = monday
    old = faq.format(date="5 April 1993", v="1.1") + body
    new = faq.format(date="11 December 1992", v="1.0") + body
    assert compare_texts(old, new, cfg).kind == "near"


def test_a_subject_replaced_twice_within_one_window_is_a_template() -> None:
    """中国政府和中国人民 -> 俄国政府和俄国人民: the second place has no shared window before it (the
    first change is inside it), so it is faced by the shared window after it; the two places are
    one substitution made alike, a template's subject. A single changed word stays an edit."""
    a = (
        "国家主席习近平就该国发生强烈地震向该国领导人致慰问电。习近平在慰问电中表示，惊悉贵国发生强烈地震，"
        "造成重大人员伤亡和财产损失，我谨代表中国政府和中国人民，并以我个人的名义，向遇难者表示深切哀悼，"
        "向遇难者家属和伤者致以诚挚慰问。"
    )
    assert compare_texts(a, a.replace("中国", "俄国")).kind == "unique"
    assert compare_texts(a, a.replace("中国", "俄国"), MatchConfig(report_templates=True)).kind == "template"
    assert compare_texts(a, a.replace("惊悉", "惊闻")).kind == "near"
